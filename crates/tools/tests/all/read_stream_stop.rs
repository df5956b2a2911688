//! The first page of a huge file costs what a small file costs: `read` stops streaming once
//! the byte cap is reached (spec §1 step 10). Alone in its file so that no other test streams
//! bytes in this process while the counter is compared.

use serde_json::json;
use strata_services::fs::FsUtil;
use strata_testkit::TestInstance;

#[tokio::test]
async fn large_file_at_the_byte_cap_reads_less_than_half_from_disk() {
    let line = "z".repeat(63);
    // 4 MiB of 64-byte lines.
    let text: String = (0..65_536).map(|_| format!("{line}\n")).collect();
    let size = text.len() as u64;
    TestInstance::builder()
        .file("huge.log.txt", &text)
        .run(|t| async move {
            let before = FsUtil::bytes_streamed();
            let r = t
                .call("read", json!({"filePath": "huge.log.txt"}))
                .await
                .unwrap();
            let streamed = FsUtil::bytes_streamed() - before;
            assert_eq!(r.metadata["truncated"], true);
            assert!(
                r.output.contains("offset="),
                "{}",
                &r.output[r.output.len() - 200..]
            );
            assert!(
                streamed < size / 2,
                "read {streamed} of {size} bytes: the stream did not stop at the cap"
            );
            assert!(streamed > 0, "the page came from the stream");
        })
        .await;
}
