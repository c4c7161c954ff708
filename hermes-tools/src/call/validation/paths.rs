//! Where a value sits in the arguments, written out as a JSON pointer when an error needs it.

use std::fmt::Write as _;

/// Where a value sits in the arguments, built as the check descends and written out as a JSON
/// pointer only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
    /// Nesting level in the arguments, for the depth limit.
    pub(super) depth: u32,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// A path starting at a value nested `depth` levels deep.
    pub(crate) fn root(depth: u32) -> Self {
        Path {
            parent: None,
            segment: Segment::Root,
            depth,
        }
    }

    pub(super) fn key<'b>(&'b self, key: &'b str) -> Path<'b> {
        self.child(Segment::Key(key))
    }

    pub(super) fn index(&self, index: usize) -> Path<'_> {
        self.child(Segment::Index(index))
    }

    fn child<'b>(&'b self, segment: Segment<'b>) -> Path<'b> {
        Path {
            parent: Some(self),
            segment,
            depth: self.depth.saturating_add(1),
        }
    }

    fn segments(&self) -> Vec<Segment<'a>> {
        let mut segments = vec![self.segment];
        let mut at = self.parent;
        while let Some(path) = at {
            segments.push(path.segment);
            at = path.parent;
        }
        segments.reverse();
        segments
    }

    /// Number of steps from the root.
    pub(super) fn len(&self) -> usize {
        self.segments()
            .iter()
            .filter(|segment| !matches!(segment, Segment::Root))
            .count()
    }

    /// The JSON pointer (RFC 6901) of this path.
    pub(super) fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in self.segments() {
            match segment {
                Segment::Root => {}
                Segment::Key(key) => {
                    out.push('/');
                    out.push_str(&key.replace('~', "~0").replace('/', "~1"));
                }
                Segment::Index(index) => {
                    let _ = write!(out, "/{index}");
                }
            }
        }
        out
    }
}
