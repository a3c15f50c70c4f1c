package oauthtest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// PublishClientDocument serves doc (marshalled as JSON) as a client ID
// metadata document at path on the servers' HTTPS host, and returns its
// URL. The authorization server fetches documents only with
// [Options.ClientDocuments].
func (s *Server) PublishClientDocument(path string, doc any) string {
	data, err := json.Marshal(doc)
	if err != nil {
		data = []byte(err.Error()) // served as it is: not a document
	}
	s.mu.Lock()
	s.published[path] = data
	s.mu.Unlock()
	return s.docs.URL + path
}

// DocumentsURL is the address of the HTTPS host of the client ID
// metadata documents.
func (s *Server) DocumentsURL() string { return s.docs.URL }

// DocumentsClient is an HTTP client that trusts the HTTPS host of the
// client ID metadata documents (and reaches the other servers too).
func (s *Server) DocumentsClient() *http.Client {
	return s.docs.Client()
}

// DocumentsFetched is every client ID metadata document the
// authorization server fetched, by URL, in order.
func (s *Server) DocumentsFetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.fetched)
}

func (s *Server) serveDocument(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.published[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// checkClientDocument fetches the client ID metadata document at id and
// checks that it names itself and lists redirect among its redirect_uris
// (any port, for a loopback address, as RFC 8252 asks).
func (s *Server) checkClientDocument(ctx context.Context, id, redirect string) error {
	s.mu.Lock()
	s.fetched = append(s.fetched, id)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return fmt.Errorf("client id %s is not a URL: %v", id, err)
	}
	resp, err := s.docs.Client().Do(req)
	if err != nil {
		return fmt.Errorf("cannot fetch the client's metadata document %s: %v", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the client's metadata document %s answered %s", id, resp.Status)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&doc); err != nil {
		return fmt.Errorf("the client's metadata document %s is not JSON: %v", id, err)
	}
	if doc.ClientID != id {
		return fmt.Errorf("the client's metadata document %s names the client %q", id, doc.ClientID)
	}
	for _, u := range doc.RedirectURIs {
		if sameRedirect(u, redirect) {
			return nil
		}
	}
	return fmt.Errorf("redirect_uri %s is not among the redirect_uris of the client's metadata document %s", redirect, id)
}

// sameRedirect says whether the redirect address asked for matches a
// registered one: the same address, or for a loopback one the same
// scheme, host and path on any port (RFC 8252 section 7.3).
func sameRedirect(registered, asked string) bool {
	if registered == asked {
		return true
	}
	r, err1 := url.Parse(registered)
	a, err2 := url.Parse(asked)
	if err1 != nil || err2 != nil || r.Scheme != "http" || a.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(r.Hostname())
	return ip != nil && ip.IsLoopback() && r.Hostname() == a.Hostname() && r.Path == a.Path
}

func rand8() string { return rand.Text()[:8] }
