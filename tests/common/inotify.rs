//! Proof that nothing was opened: inotify watches on the directories a test's server must never
//! touch, and the names of what was opened or read in them since.

use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
use std::path::Path;

/// Watches each of `dirs` (and the files directly in it) for `flags`, without blocking reads.
pub fn watch<P: AsRef<Path>>(dirs: &[P], flags: AddWatchFlags) -> Inotify {
    let ino = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC).unwrap();
    for d in dirs {
        ino.add_watch(d.as_ref(), flags).unwrap();
    }
    ino
}

/// Watches `dirs` for opens and reads.
pub fn watch_reads<P: AsRef<Path>>(dirs: &[P]) -> Inotify {
    watch(dirs, AddWatchFlags::IN_OPEN | AddWatchFlags::IN_ACCESS)
}

/// Every event queued so far, drained: the name it was for, `.` for a watched directory itself.
pub fn opened(ino: &Inotify) -> Vec<String> {
    let mut names = Vec::new();
    while let Ok(events) = ino.read_events() {
        if events.is_empty() {
            break;
        }
        names.extend(events.into_iter().map(|e| {
            e.name
                .map_or(".".into(), |n| n.to_string_lossy().into_owned())
        }));
    }
    names
}

/// The files opened or read in the watched directories (events for a directory itself left out).
pub fn opened_files(ino: &Inotify) -> Vec<String> {
    opened(ino).into_iter().filter(|n| n != ".").collect()
}
