//! The sandbox's settings: what each key accepts, what a malformed one says, and what a
//! bubblewrap that is not there makes of each mode.

use super::*;

fn settings(toml: &str) -> Result<Settings, String> {
    let config = Config::from_toml_str(&format!("[tools.terminal]\n{toml}")).unwrap();
    Settings::from_config(&config)
}

#[test]
fn defaults_are_auto_without_network_and_512_processes() {
    let settings = settings("").unwrap();
    assert_eq!(settings.mode, Mode::Auto);
    assert!(!settings.network);
    assert_eq!(settings.max_processes, DEFAULT_MAX_PROCESSES);
    assert!(settings.read_only.is_empty() && settings.writable.is_empty());
}

#[test]
fn every_key_is_read() {
    let settings = settings(
        "sandbox = \"required\"\nnetwork = true\nread_only_paths = [\"/srv\"]\n\
         writable_paths = [\"/var/cache/x\"]\nbwrap = \"/opt/bwrap\"\nmax_processes = 64\n",
    )
    .unwrap();
    assert_eq!(settings.mode, Mode::Required);
    assert!(settings.network);
    assert_eq!(settings.read_only, [PathBuf::from("/srv")]);
    assert_eq!(settings.writable, [PathBuf::from("/var/cache/x")]);
    assert_eq!(settings.bwrap.as_deref(), Some(Path::new("/opt/bwrap")));
    assert_eq!(settings.max_processes, 64);
    assert_eq!(self::settings("sandbox = \"off\"").unwrap().mode, Mode::Off);
}

#[test]
fn a_malformed_setting_names_its_key_and_what_to_write() {
    for (toml, key, wanted) in [
        (
            "sandbox = \"on\"",
            "sandbox",
            "\"auto\", \"required\" or \"off\"",
        ),
        ("sandbox = true", "sandbox", "\"auto\""),
        ("network = \"yes\"", "network", "true or false"),
        ("max_processes = 0", "max_processes", "at least 1"),
        ("max_processes = -3", "max_processes", "at least 1"),
        ("max_processes = 1.5", "max_processes", "whole number"),
        (
            "read_only_paths = \"/srv\"",
            "read_only_paths",
            "absolute paths",
        ),
        (
            "writable_paths = [\"relative/dir\"]",
            "writable_paths",
            "absolute paths",
        ),
        ("bwrap = 3", "bwrap", "the path of bubblewrap"),
        ("bwrap = \"\"", "bwrap", "the path of bubblewrap"),
    ] {
        let err = settings(toml).unwrap_err();
        assert!(
            err.contains(&format!("`[tools.terminal] {key}`")),
            "{toml}: {err}"
        );
        assert!(err.contains(wanted), "{toml}: {err}");
    }
}

#[test]
fn a_missing_bubblewrap_is_a_reason_for_required_and_a_note_for_auto() {
    let required = settings("sandbox = \"required\"\nbwrap = \"/nonexistent/bwrap\"")
        .unwrap()
        .plan()
        .unwrap_err();
    assert!(required.contains("sandbox = \"required\""), "{required}");
    assert!(
        required.contains("bubblewrap is not at /nonexistent/bwrap"),
        "{required}"
    );
    let auto = settings("bwrap = \"/nonexistent/bwrap\"")
        .unwrap()
        .plan()
        .unwrap();
    assert!(matches!(&auto, Plan::Unsandboxed { note: Some(_) }));
    assert!(
        auto.note()
            .unwrap()
            .starts_with("not sandboxed: bubblewrap is not at")
    );
    assert!(auto.describe().starts_with("Sandbox: off."));
    // A bare name is looked for on the PATH.
    let named = settings("sandbox = \"required\"\nbwrap = \"no-such-bwrap-here\"")
        .unwrap()
        .plan()
        .unwrap_err();
    assert!(named.contains("is not on the PATH"), "{named}");
    let off = settings("sandbox = \"off\"").unwrap().plan().unwrap();
    assert!(matches!(off, Plan::Unsandboxed { note: None }));
}

#[test]
fn the_command_mounts_the_workspace_last_and_unshares_the_network_unless_allowed() {
    let sandbox = Sandbox {
        bwrap: PathBuf::from("/usr/bin/bwrap"),
        settings: settings("read_only_paths = [\"/srv\"]").unwrap(),
    };
    let (program, args) = sandbox.command(
        Path::new("/bin/sh"),
        "echo hi",
        Path::new("/srv/project"),
        Some(Path::new("/home/agent")),
    );
    assert_eq!(program, Path::new("/usr/bin/bwrap"));
    let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
    let tail = &args[args.len() - 9..];
    assert_eq!(
        tail,
        [
            "--bind",
            "/srv/project",
            "/srv/project",
            "--chdir",
            "/srv/project",
            "--",
            "/bin/sh",
            "-c",
            "echo hi"
        ]
    );
    for flag in [
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        "--new-session",
    ] {
        assert!(args.contains(&flag), "{flag}: {args:?}");
    }
    let home = args.iter().position(|a| *a == "/home/agent").unwrap();
    assert_eq!(args[home - 1], "--tmpfs");
    let srv = args.iter().position(|a| *a == "/srv").unwrap();
    assert_eq!(args[srv - 1], "--ro-bind");
    let networked = Sandbox {
        bwrap: PathBuf::from("bwrap"),
        settings: settings("network = true").unwrap(),
    };
    let (_, args) = networked.command(Path::new("/bin/sh"), "true", Path::new("/w"), None);
    assert!(!args.iter().any(|a| a == "--unshare-net"));
}
