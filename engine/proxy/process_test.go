package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/recorder"
)

// httpProxyProcess is the test binary as an HTTP proxy process
// (PROXY_TEST_ROLE=httpproxy): to PROXY_TEST_UPSTREAM, on a loopback
// port it prints on stdout, until its stdin ends.
func httpProxyProcess() {
	p, err := NewHTTP(os.Getenv("PROXY_TEST_UPSTREAM"), recorder.New(recorder.Meta{}), engine.Limits{}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(l.Addr())
	go http.Serve(l, p)
	io.Copy(io.Discard, os.Stdin)
}
