package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// CheckClientMetadataURL says whether u can be a client ID metadata
// document's URL: https, with a path (the client id is the URL, and the
// specification wants one that names a document, not a host).
func CheckClientMetadataURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.Host == "" || p.Path == "" || p.Path == "/" || p.Fragment != "" {
		return fmt.Errorf("%q: a client metadata document's URL is https with a path, as in https://example.com/inspector/client.json", u)
	}
	return nil
}

// clientDocumentError is a client ID metadata document the
// authorization server would refuse, found before the browser opens.
type clientDocumentError struct {
	url, problem, fix string
}

func (e *clientDocumentError) Error() string {
	return "OAuth: the client's metadata document " + e.url + " " + e.problem + ": " + e.fix
}

// checkClientDocument reads the client's metadata document and checks
// what the authorization server will: that it names itself as the client
// id and lists redirect among its redirect_uris. A loopback address
// matches on any port, as RFC 8252 asks of authorization servers.
func (c *Client) checkClientDocument(ctx context.Context, redirect string) error {
	u := c.cfg.ClientMetadataURL
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &clientDocumentError{u, "is not a URL (" + err.Error() + ")", "give its https address"}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return &clientDocumentError{u, "cannot be read (" + err.Error() + ")", "the authorization server must be able to fetch it: publish it there, or check the address"}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &clientDocumentError{u, "answered " + resp.Status, "publish the document at that address (JSON over https)"}
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&doc); err != nil {
		return &clientDocumentError{u, "is not a JSON client metadata document (" + err.Error() + ")", "publish one with client_id, client_name and redirect_uris"}
	}
	if doc.ClientID != u {
		return &clientDocumentError{u, fmt.Sprintf("names the client %q", doc.ClientID), "its client_id must be its own URL, " + u}
	}
	for _, r := range doc.RedirectURIs {
		if sameRedirect(r, redirect) {
			return nil
		}
	}
	return &clientDocumentError{u, fmt.Sprintf("does not list the redirect address %s among its redirect_uris (%s)", redirect, strings.Join(doc.RedirectURIs, ", ")),
		"add http://127.0.0.1/callback (authorization servers take a loopback address on any port), or add that exact address and give its port with --oauth-redirect-port"}
}

// sameRedirect says whether the redirect address redirect matches the
// registered one: the same, or for a loopback address the same scheme,
// host and path on any port.
func sameRedirect(registered, redirect string) bool {
	if registered == redirect {
		return true
	}
	r, err1 := url.Parse(registered)
	a, err2 := url.Parse(redirect)
	if err1 != nil || err2 != nil || r.Scheme != "http" || a.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(r.Hostname())
	return ip != nil && ip.IsLoopback() && r.Hostname() == a.Hostname() && r.Path == a.Path
}
