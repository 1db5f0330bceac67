//go:build !linux

package proc

import "syscall"

// toolAttr puts a tool in its own process group, so a timeout kills what
// it started too. Outside Linux there is no parent-death signal: a tool
// outlives a scand that was killed outright.
func toolAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
