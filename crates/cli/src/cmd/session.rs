//! `strata session` (being written).

use crate::args::SessionCommand;

pub async fn session(_cmd: SessionCommand) -> u8 {
    eprintln!("strata: `session` is not available in this build yet");
    2
}
