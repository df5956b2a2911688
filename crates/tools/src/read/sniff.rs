//! What kind of file is this? Magic-byte MIME sniffing and the binary check (spec §1 steps 8-9).

/// Extensions always treated as binary, whatever the bytes say.
const BINARY_EXTENSIONS: &[&str] = &[
    "zip", "tar", "gz", "exe", "dll", "so", "class", "jar", "war", "7z", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "odt", "ods", "odp", "bin", "dat", "obj", "o", "a", "lib", "wasm",
    "pyc", "pyo",
];

/// MIME types returned to the model as attachments.
pub(super) const ATTACH_MIMES: &[&str] = &[
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "application/pdf",
];

/// The MIME type from the first bytes, when they carry a known signature.
pub(super) fn sniff_mime(sample: &[u8]) -> Option<&'static str> {
    let starts = |sig: &[u8]| sample.starts_with(sig);
    if starts(&[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else if starts(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if starts(b"GIF8") {
        Some("image/gif")
    } else if starts(b"BM") {
        Some("image/bmp")
    } else if starts(b"%PDF-") {
        Some("application/pdf")
    } else if sample.len() >= 12 && starts(b"RIFF") && &sample[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// MIME from the sample, else from the file name's extension.
pub(super) fn mime_of(name: &str, sample: &[u8]) -> String {
    if let Some(m) = sniff_mime(sample) {
        return m.to_string();
    }
    mime_guess::from_path(name)
        .first_raw()
        .unwrap_or("application/octet-stream")
        .to_string()
}

/// Binary by extension, by a NUL byte, or by more than 30 % control bytes in the sample.
pub(super) fn is_binary(name: &str, sample: &[u8]) -> bool {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    if ext.is_some_and(|e| BINARY_EXTENSIONS.contains(&e.as_str())) {
        return true;
    }
    if sample.is_empty() {
        return false;
    }
    if sample.contains(&0) {
        return true;
    }
    let control = sample
        .iter()
        .filter(|&&b| (b < 0x09) || (0x0E..=0x1F).contains(&b))
        .count();
    control * 10 > sample.len() * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        assert_eq!(sniff_mime(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff_mime(b"%PDF-1.7"), Some("application/pdf"));
        assert_eq!(sniff_mime(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff_mime(b"BMtext"), Some("image/bmp"));
        assert_eq!(sniff_mime(b"hello"), None);
        assert_eq!(mime_of("image.bin", &[0xFF, 0xD8, 0xFF]), "image/jpeg");
        assert_eq!(mime_of("a.png", b"not really"), "image/png");
    }

    #[test]
    fn binary_rules() {
        assert!(is_binary("module.wasm", b"plain text"));
        assert!(is_binary("a.txt", b"abc\0def"));
        assert!(!is_binary("a.txt", b""));
        assert!(!is_binary("schema.fbs", b"table Monster {}"));
        let mostly_control = [1u8, 2, 3, 4, b'a'];
        assert!(is_binary("x", &mostly_control));
        assert!(!is_binary("x", b"tabs\tand\nnewlines\r\n"));
    }
}
