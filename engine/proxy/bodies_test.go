//go:build linux && !race

package proxy

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repeat is an endless body of one byte.
type repeat byte

func (r repeat) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = byte(r)
	}
	return len(b), nil
}

// TestHTTPBodiesBoundedInTotal: 20 clients POST 15 MiB each at once
// through the HTTP proxy (a process of its own); every POST reaches the
// server whole within two minutes, and the proxy's peak RSS (its
// rusage's Maxrss) stays under 300 MB. Reading each body whole with no
// bound in total, it reached 741 MiB. (Not under -race: the race
// detector's own memory would be measured.)
func TestHTTPBodiesBoundedInTotal(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 300 MiB")
	}
	const clients, size = 20, 15 << 20
	var mu sync.Mutex
	var whole int
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n == size {
			mu.Lock()
			whole++
			mu.Unlock()
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROXY_TEST_ROLE=httpproxy", "PROXY_TEST_UPSTREAM="+up.URL+"/mcp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + strings.TrimSpace(addr) + "/mcp"
	start := time.Now()
	var wg sync.WaitGroup
	statuses := make(chan int, clients)
	for range clients {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, url, io.LimitReader(repeat('x'), size))
			req.ContentLength = size
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	took := time.Since(start)
	close(statuses)
	for s := range statuses {
		if s != http.StatusAccepted {
			t.Errorf("a POST got %d, want the server's 202", s)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	peak := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10 // KiB on Linux
	t.Logf("%d POSTs of %d MiB through the proxy in %v; the proxy's peak RSS %.1f MB", clients, size>>20, took.Round(time.Millisecond), float64(peak)/1e6)
	if whole != clients {
		t.Errorf("%d of %d POSTs reached the server whole", whole, clients)
	}
	if peak > 300e6 {
		t.Errorf("the proxy's peak RSS %.1f MB, want under 300 MB", float64(peak)/1e6)
	}
	if took > 2*time.Minute {
		t.Errorf("took %v, want under 2 minutes", took)
	}
}
