//! HTML into the forms `webfetch` returns (spec §8 step 8): Markdown through `htmd`, and the
//! visible text by walking the DOM htmd parses (html5ever), so there is one HTML parser.

use htmd::element_handler::Handlers;
use htmd::options::{BulletListMarker, Options};
use htmd::{Element, HtmlToMarkdown};
use markup5ever_rcdom::{Handle, NodeData};

/// Elements dropped with their content in Markdown: `<title>` and `<noscript>` text remain.
const MARKDOWN_DROPPED: &[&str] = &["script", "style", "meta", "link"];

/// Elements whose content is not visible text (the `<title>` text is kept, as the reference
/// keeps it).
const TEXT_SKIPPED: &[&str] = &["script", "style", "noscript", "iframe", "object", "embed"];

/// Elements that start and end a line in the text form.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "title",
    "tr",
    "ul",
];

/// HTML → Markdown the way the reference's converter writes it: ATX headings, `---` rules,
/// `-` bullets, fenced code, `*` emphasis, `**` strong, inline links.
pub fn markdown(html: &str) -> Result<String, String> {
    let options = Options {
        bullet_list_marker: BulletListMarker::Dash,
        ..Options::default()
    };
    HtmlToMarkdown::builder()
        .options(options)
        .skip_tags(MARKDOWN_DROPPED.to_vec())
        .add_handler(vec!["hr"], |_: &dyn Handlers, _: Element| {
            Some("\n\n---\n\n".into())
        })
        .build()
        .convert(html)
        .map_err(|e| e.to_string())
}

/// The visible text of an HTML document: text nodes in document order without the content of
/// scripts, styles and embedded objects; a line break at block boundaries and `<br>`,
/// whitespace collapsed outside `<pre>`, at most one blank line in a row, trimmed.
pub fn visible_text(html: &str) -> Result<String, String> {
    let root = HtmlToMarkdown::new()
        .html_to_tree(html)
        .map_err(|e| e.to_string())?;
    let mut text = Text::default();
    // An explicit stack: a deeply nested page must not overflow the thread's stack. `root`
    // stays alive until the end: dropping an rcdom node empties every node below it, even
    // those still referenced.
    let mut steps = vec![Step::Enter(root.clone())];
    while let Some(step) = steps.pop() {
        let node = match step {
            Step::LeaveBlock => {
                text.line_break();
                continue;
            }
            Step::LeavePre => {
                text.pre -= 1;
                text.line_break();
                continue;
            }
            Step::Enter(node) => node,
        };
        match &node.data {
            NodeData::Text { contents } => text.push(&contents.borrow()),
            NodeData::Element { name, .. } => {
                let tag: &str = &name.local;
                if TEXT_SKIPPED.contains(&tag) {
                    continue;
                }
                match tag {
                    "br" => text.hard_break(),
                    "pre" => {
                        text.line_break();
                        text.pre += 1;
                        steps.push(Step::LeavePre);
                    }
                    "td" | "th" => text.space(),
                    _ if BLOCKS.contains(&tag) => {
                        text.line_break();
                        steps.push(Step::LeaveBlock);
                    }
                    _ => {}
                }
                push_children(&mut steps, &node);
            }
            NodeData::Document => push_children(&mut steps, &node),
            _ => {}
        }
    }
    Ok(text.finish())
}

enum Step {
    Enter(Handle),
    LeaveBlock,
    LeavePre,
}

fn push_children(steps: &mut Vec<Step>, node: &Handle) {
    let children = node.children.borrow();
    steps.extend(children.iter().rev().cloned().map(Step::Enter));
}

/// The text being built, with the whitespace state between text nodes.
#[derive(Default)]
struct Text {
    out: String,
    /// Inside this many `<pre>` elements: whitespace is kept.
    pre: usize,
    /// A space is due before the next word on this line.
    space: bool,
}

impl Text {
    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    fn push(&mut self, s: &str) {
        if self.pre > 0 {
            self.out.push_str(s);
            self.space = false;
            return;
        }
        if s.starts_with(char::is_whitespace) {
            self.space();
        }
        let mut words = s.split_whitespace().peekable();
        while let Some(word) = words.next() {
            if self.space && !self.at_line_start() {
                self.out.push(' ');
            }
            self.out.push_str(word);
            self.space = words.peek().is_some();
        }
        if s.ends_with(char::is_whitespace) {
            self.space();
        }
    }

    fn space(&mut self) {
        self.space = true;
    }

    fn line_break(&mut self) {
        self.space = false;
        if !self.at_line_start() {
            self.out.push('\n');
        }
    }

    /// `<br>`: a line break even on an empty line, but never a second blank line.
    fn hard_break(&mut self) {
        self.space = false;
        if !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(self.out.len());
        let mut newlines = 0;
        for line in self.out.split('\n') {
            let line = line.trim_end();
            if line.is_empty() {
                newlines += 1;
                continue;
            }
            if !out.is_empty() {
                out.push_str(if newlines > 1 { "\n\n" } else { "\n" });
            }
            out.push_str(line);
            newlines = 1;
        }
        out.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!doctype html><html><head><title>Test Page</title>\
        <meta name=\"x\" content=\"y\"><link rel=\"stylesheet\" href=\"s.css\">\
        <style>body { color: red }</style><script>var hidden = 1;</script></head>\
        <body><h1>Main Title</h1>\n  <p>First <b>bold</b> paragraph with a \
        <a href=\"https://example.com/x\">link</a>.</p>\
        <ul><li>one</li><li>two</li></ul><hr>\
        <pre><code>let x = 1;\n  let y = 2;</code></pre>\
        <noscript>Enable scripts</noscript></body></html>";

    #[test]
    fn markdown_has_the_reference_shape_without_scripts_or_styles() {
        let md = markdown(PAGE).unwrap();
        assert!(md.contains("# Main Title"), "{md}");
        assert!(
            md.contains("First **bold** paragraph with a [link](https://example.com/x)."),
            "{md}"
        );
        assert!(md.contains("-   one\n-   two"), "{md}");
        assert!(md.contains("\n---\n"), "{md}");
        assert!(md.contains("```\nlet x = 1;\n  let y = 2;\n```"), "{md}");
        assert!(md.contains("Enable scripts"), "{md}");
        assert!(!md.contains("hidden") && !md.contains("color"), "{md}");
    }

    #[test]
    fn text_keeps_visible_words_one_block_per_line() {
        let text = visible_text(PAGE).unwrap();
        assert_eq!(
            text,
            "Test Page\nMain Title\nFirst bold paragraph with a link.\none\ntwo\n\
             let x = 1;\n  let y = 2;"
        );
    }

    #[test]
    fn text_of_script_and_style_around_a_greeting_is_the_greeting() {
        let html = "<html><head><style>p{}</style></head><body>\
            <script>alert(1)</script><p>Hello world</p><style>x</style></body></html>";
        assert_eq!(visible_text(html).unwrap(), "Hello world");
    }

    #[test]
    fn text_collapses_whitespace_and_blank_runs() {
        let html = "<div>  a \n\n  b </div><br><br><br><br><span>c</span> <span>d</span>\
            <table><tr><td>x</td><td>y</td></tr></table>";
        assert_eq!(visible_text(html).unwrap(), "a b\n\nc d\nx y");
    }

    #[test]
    fn deep_nesting_does_not_overflow_a_small_stack() {
        // A recursive walk would need far more than this thread's stack for 3000 levels.
        let depth = 3_000;
        let html = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        let walk = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || visible_text(&html))
            .unwrap();
        assert_eq!(walk.join().unwrap().unwrap(), "deep");
    }
}
