package proxy

import "syscall"

// serverProcAttr makes the server die with the proxy: a client that kills
// the process it started (the proxy) must not leave the real server
// running.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
