//! `read` of images and PDFs (attachments) and of files that only look like media (text)
//! through the real wrapper (spec §1 step 8, §19 read).

use crate::wrapper_support::content_lines;
use base64::Engine;
use serde_json::json;
use strata_services::file_time::{FileTime, hash_bytes};
use strata_testkit::TestInstance;
use strata_tools::ToolResult;

const PNG_MAGIC: &[u8] = &[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];

fn png(extra: usize) -> Vec<u8> {
    let mut v = PNG_MAGIC.to_vec();
    v.extend((0..extra).map(|i| (i % 251) as u8));
    v
}

/// The one attachment of `r`, checked for the shape the session layer expects.
fn single_attachment(r: &ToolResult, mime: &str, bytes: &[u8]) {
    assert_eq!(r.attachments.len(), 1, "{:?}", r.attachments.len());
    let a = serde_json::to_value(&r.attachments[0]).unwrap();
    let obj = a.as_object().unwrap();
    for key in ["id", "sessionID", "messageID"] {
        assert!(!obj.contains_key(key), "tools never set `{key}`: {a}");
    }
    assert_eq!(a["type"], "file");
    assert_eq!(a["mime"], mime);
    let url = a["url"].as_str().unwrap();
    let prefix = format!("data:{mime};base64,");
    assert!(url.starts_with(&prefix), "{}", &url[..40.min(url.len())]);
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&url[prefix.len()..])
        .unwrap();
    assert_eq!(decoded, bytes, "the whole file is attached");
    assert_eq!(r.metadata["truncated"], false);
}

#[tokio::test]
async fn png_image_is_attached_without_ids() {
    let bytes = png(200);
    TestInstance::builder()
        .file("img/logo.png", &bytes)
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "img/logo.png"}))
                .await
                .unwrap();
            single_attachment(&r, "image/png", &bytes);
            insta::assert_snapshot!("read_image_output", r.output);
            assert_eq!(r.attachments[0].filename.as_deref(), Some("logo.png"));
            assert_eq!(r.metadata["loaded"], json!([]));
            assert!(r.metadata.get("outputPath").is_none());
            let rec = t
                .get::<FileTime>()
                .get("ses_test", &t.path("img/logo.png"))
                .expect("images are recorded too");
            assert_eq!(rec.hash, Some(hash_bytes(&bytes)));
        })
        .await;
}

#[tokio::test]
async fn image_bin_with_jpeg_magic_is_an_image() {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend_from_slice(&[0u8; 64]);
    TestInstance::builder()
        .file("image.bin", &bytes)
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "image.bin"}))
                .await
                .unwrap();
            single_attachment(&r, "image/jpeg", &bytes);
            assert!(r.output.contains("Image"), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn large_png_gives_exactly_one_attachment() {
    let bytes = png(3 * 1024 * 1024);
    TestInstance::builder()
        .file("large.png", &bytes)
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "large.png"}))
                .await
                .unwrap();
            single_attachment(&r, "image/png", &bytes);
        })
        .await;
}

#[tokio::test]
async fn gif_and_webp_are_sniffed_from_their_bytes() {
    let gif = b"GIF89a\x01\x00\x01\x00".to_vec();
    let webp = b"RIFF\x10\x00\x00\x00WEBPVP8 ".to_vec();
    TestInstance::builder()
        .file("anim", &gif)
        .file("photo.dat", &webp)
        .run(|t| async move {
            let r = t.call("read", json!({"filePath": "anim"})).await.unwrap();
            single_attachment(&r, "image/gif", &gif);
            let r = t
                .call("read", json!({"filePath": "photo.dat"}))
                .await
                .unwrap();
            single_attachment(&r, "image/webp", &webp);
        })
        .await;
}

#[tokio::test]
async fn pdf_is_attached_and_named_as_a_pdf() {
    let bytes = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n".to_vec();
    TestInstance::builder()
        .file("docs/spec.pdf", &bytes)
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "docs/spec.pdf"}))
                .await
                .unwrap();
            single_attachment(&r, "application/pdf", &bytes);
            assert!(r.output.contains("PDF"), "{}", r.output);
        })
        .await;
}

#[tokio::test]
async fn png_extension_on_text_is_still_attached_by_extension() {
    // Without a signature the MIME comes from the extension (spec §1 step 8).
    TestInstance::builder()
        .file("fake.png", "not really a png")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "fake.png"}))
                .await
                .unwrap();
            single_attachment(&r, "image/png", b"not really a png");
        })
        .await;
}

#[tokio::test]
async fn fbs_file_is_read_as_text() {
    TestInstance::builder()
        .file("schema.fbs", "table Monster {\n  hp: short;\n}\n")
        .run(|t| async move {
            let r = t
                .call("read", json!({"filePath": "schema.fbs"}))
                .await
                .unwrap();
            assert!(r.attachments.is_empty());
            assert_eq!(
                content_lines(&r.output),
                ["1: table Monster {", "2:   hp: short;", "3: }"]
            );
        })
        .await;
}

#[tokio::test]
async fn bmp_tiff_and_avif_holding_text_are_read_as_text() {
    TestInstance::builder()
        .file("pic.bmp", "plain words in a bmp\n")
        .file("scan.tiff", "plain words in a tiff\n")
        .file("photo.avif", "plain words in an avif\n")
        .file("icon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n")
        .run(|t| async move {
            for (name, text) in [
                ("pic.bmp", "plain words in a bmp"),
                ("scan.tiff", "plain words in a tiff"),
                ("photo.avif", "plain words in an avif"),
                ("icon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
            ] {
                let r = t.call("read", json!({"filePath": name})).await.unwrap();
                assert!(r.attachments.is_empty(), "{name} is not attached");
                assert_eq!(content_lines(&r.output), [format!("1: {text}")], "{name}");
            }
        })
        .await;
}
