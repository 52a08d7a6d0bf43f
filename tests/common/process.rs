//! A child process under a deadline: its output read on threads (so a full pipe never stalls
//! it), killed and the test failed when it outlives the deadline (a hang is a failure, never a
//! stuck test run).

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How a process ended.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Run `cmd` (stdin closed), killing it and failing the test if it outlives `deadline`.
pub fn run_within(mut cmd: Command, deadline: Duration) -> Run {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_t = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not finish within {deadline:?}: killed (a hang)");
        }
        thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    Run {
        status,
        elapsed,
        stdout: String::from_utf8_lossy(&out_t.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_t.join().unwrap()).into_owned(),
    }
}
