//! The directory the file tools are confined to.
//!
//! A [`Workspace`] is given to tools as a context extension. Every path the model sends goes
//! through [`Workspace::resolve`], which refuses anything that would land outside the root:
//! `..` segments, absolute paths elsewhere, and symbolic links pointing out.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Why a model-given path was refused.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The path resolves outside the workspace root.
    #[error(
        "Access denied: '{path}' is outside the workspace {root}. Use a path inside {root}, \
         either relative to it (such as 'src/main.rs') or absolute under it."
    )]
    Outside {
        /// The path as the model sent it.
        path: String,
        /// The workspace root, for the message.
        root: String,
    },
    /// Part of the path exists but could not be resolved (a broken link, no permission).
    #[error("Cannot resolve '{path}': {source}. Use another path inside the workspace {root}.")]
    Unresolvable {
        /// The path as the model sent it.
        path: String,
        /// The workspace root, for the message.
        root: String,
        /// What the file system said.
        source: io::Error,
    },
}

/// The root directory that file tools are confined to, provided as a context extension.
///
/// ```
/// use example_tools::Workspace;
///
/// let dir = std::env::temp_dir();
/// let workspace = Workspace::new(&dir);
/// assert!(workspace.resolve("notes/todo.txt").unwrap().starts_with(workspace.root()));
/// assert!(workspace.resolve("../../etc/passwd").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// A workspace rooted at `root`.
    ///
    /// The root is canonicalized when it exists, so that resolved paths (always canonical)
    /// can be compared with it; a root that does not exist is kept as an absolute path, and
    /// then nothing resolves inside it.
    pub fn new(root: impl AsRef<Path>) -> Self {
        let root = root.as_ref();
        let root = fs::canonicalize(root)
            .or_else(|_| std::path::absolute(root))
            .unwrap_or_else(|_| root.to_path_buf());
        Self { root }
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a model-given path (relative to the root, or absolute inside it) to an
    /// absolute path inside the root, following symbolic links.
    ///
    /// The path need not exist: the longest existing ancestor is canonicalized (which
    /// resolves links and `..`), and the remaining components are applied lexically, which
    /// is exact because components that do not exist cannot be links.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, WorkspaceError> {
        let joined = self.root.join(path);
        let (existing, rest) = split_existing(&joined);
        let mut resolved =
            fs::canonicalize(existing).map_err(|source| WorkspaceError::Unresolvable {
                path: path.to_owned(),
                root: self.root.display().to_string(),
                source,
            })?;
        for component in rest.components() {
            match component {
                Component::Normal(name) => resolved.push(name),
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            }
        }
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else {
            Err(WorkspaceError::Outside {
                path: path.to_owned(),
                root: self.root.display().to_string(),
            })
        }
    }

    /// `path` relative to the root, with `/` separators, for showing to the model
    /// (`"."` for the root itself; a path outside the root is shown whole).
    pub fn display_path(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Splits `path` into its longest existing ancestor and the rest.
///
/// Existence is tested without following a final link, so a dangling link counts as
/// existing and then fails to canonicalize, instead of being written through.
fn split_existing(path: &Path) -> (&Path, &Path) {
    for ancestor in path.ancestors() {
        if fs::symlink_metadata(ancestor).is_ok() {
            let rest = path.strip_prefix(ancestor).unwrap_or(Path::new(""));
            return (ancestor, rest);
        }
    }
    // Not even the file-system root exists: let canonicalize report it.
    (path, Path::new(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    fn setup() -> (TempDir, Workspace) {
        let dir = TempDir::new().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/a.txt"), "a").unwrap();
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    #[test]
    fn relative_and_absolute_paths_inside_resolve() {
        let (_dir, ws) = setup();
        let root = ws.root().to_path_buf();
        assert_eq!(ws.resolve("sub/a.txt").unwrap(), root.join("sub/a.txt"));
        assert_eq!(
            ws.resolve("./sub/../sub/a.txt").unwrap(),
            root.join("sub/a.txt")
        );
        assert_eq!(
            ws.resolve("new/dir/file.txt").unwrap(),
            root.join("new/dir/file.txt")
        );
        assert_eq!(ws.resolve("new/../b.txt").unwrap(), root.join("b.txt"));
        let absolute = root.join("sub/a.txt");
        assert_eq!(ws.resolve(absolute.to_str().unwrap()).unwrap(), absolute);
        assert_eq!(ws.resolve("").unwrap(), root);
        assert_eq!(ws.resolve(".").unwrap(), root);
    }

    #[test]
    fn escapes_are_refused_with_the_root_in_the_message() {
        let (_dir, ws) = setup();
        for path in [
            "..",
            "../x",
            "sub/../../x",
            "new/../../x",
            "/etc/passwd",
            "/",
        ] {
            let err = ws.resolve(path).unwrap_err();
            assert!(
                matches!(err, WorkspaceError::Outside { .. }),
                "{path}: {err}"
            );
            let root = ws.root().display();
            assert_eq!(
                err.to_string(),
                format!(
                    "Access denied: '{path}' is outside the workspace {root}. Use a path inside \
                     {root}, either relative to it (such as 'src/main.rs') or absolute under it."
                )
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_are_refused_and_links_inside_followed() {
        let (dir, ws) = setup();
        let outside = TempDir::new().unwrap();
        fs::write(outside.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
            .unwrap();
        std::os::unix::fs::symlink("sub", dir.path().join("inner")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("nope"), dir.path().join("dangling"))
            .unwrap();

        assert!(matches!(
            ws.resolve("out/secret.txt"),
            Err(WorkspaceError::Outside { .. })
        ));
        assert!(matches!(
            ws.resolve("out/new.txt"),
            Err(WorkspaceError::Outside { .. })
        ));
        assert!(matches!(
            ws.resolve("s.txt"),
            Err(WorkspaceError::Outside { .. })
        ));
        assert!(matches!(
            ws.resolve("dangling"),
            Err(WorkspaceError::Unresolvable { .. })
        ));
        assert_eq!(
            ws.resolve("inner/a.txt").unwrap(),
            ws.root().join("sub/a.txt")
        );
        // `..` after a link applies to the link's target, as the kernel does.
        assert!(matches!(
            ws.resolve("out/../x"),
            Err(WorkspaceError::Outside { .. })
        ));
    }

    #[test]
    fn display_paths_are_relative() {
        let (_dir, ws) = setup();
        assert_eq!(ws.display_path(&ws.root().join("sub/a.txt")), "sub/a.txt");
        assert_eq!(ws.display_path(ws.root()), ".");
        assert_eq!(ws.display_path(Path::new("/elsewhere")), "/elsewhere");
    }
}
