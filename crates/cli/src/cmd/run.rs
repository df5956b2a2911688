//! `strata run`: the agent on one message (being written).

use crate::args::RunArgs;

pub async fn run(_args: RunArgs) -> u8 {
    eprintln!("strata: `run` is not available in this build yet");
    2
}
