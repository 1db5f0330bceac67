package proc

import "syscall"

// toolAttr puts a tool in its own process group (so a timeout kills what
// it started too) and has the kernel kill it when scand dies: a daemon
// that is OOM-killed or sent SIGKILL cannot cancel its runs, and a scanner
// left behind would go on reading the target and writing into the work
// directory with nobody to collect its report. The signal follows the
// thread that started the tool; Go ends an OS thread only when a goroutine
// exits while locked to it, and no caller of Run is locked.
func toolAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
