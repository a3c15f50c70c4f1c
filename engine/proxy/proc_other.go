//go:build !linux

package proxy

import "syscall"

// serverProcAttr: elsewhere the server is ended by the proxy's own exit
// path only.
func serverProcAttr() *syscall.SysProcAttr { return nil }
