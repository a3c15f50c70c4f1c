package oauth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fanout-inspector/inspector/engine"
	"github.com/fanout-inspector/inspector/engine/load"
	"github.com/fanout-inspector/inspector/engine/oauth"
	"github.com/fanout-inspector/inspector/engine/oauth/oauthtest"
	"github.com/fanout-inspector/inspector/recorder"
)

// session connects through c to srv's streamable HTTP endpoint.
func session(t *testing.T, srv *oauthtest.Server, c *oauth.Client, sec *secrets) (*engine.Session, *recorder.Recording) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: "oauth"})
	sec.to(rec)
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportHTTP, URL: srv.MCPURL(), HTTPAuth: c}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, rec
}

func call(t *testing.T, s *engine.Session, tool string) engine.CallOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.CallTool(ctx, engine.ToolCall{Tool: tool})
}

// TestStepUpMidSession: a server that answers one tool with 403
// insufficient_scope mid-session gets a second sign-in, for the scopes
// held and the one it asks (the browser opens once more), the call is
// sent again and succeeds, and the calls before and after it go on with
// the larger token; the session does not end with "Forbidden".
func TestStepUpMidSession(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{StepUpScope: "admin"})
	t.Cleanup(srv.Close)
	var n notes
	c, sec, b, err := signIn(t, srv, oauth.Config{Notify: n.add})
	if err != nil {
		t.Fatal(err)
	}
	s, rec := session(t, srv, c, sec)
	if out := call(t, s, "whoami"); out.Failure != "" {
		t.Fatalf("whoami before the step-up: %s", out.Failure)
	}
	if out := call(t, s, "admin"); out.Failure != "" {
		t.Fatalf("admin, which needs the step-up: %s\nnotices:\n%s", out.Failure, n.String())
	}
	if out := call(t, s, "whoami"); out.Failure != "" {
		t.Fatalf("whoami after the step-up: %s", out.Failure)
	}
	if out := call(t, s, "admin"); out.Failure != "" {
		t.Fatalf("admin a second time: %s", out.Failure)
	}
	if opened, _, _ := b.last(); opened != 2 {
		t.Errorf("the browser was opened %d times, want 2 (the sign-in and one step-up)", opened)
	}
	if n := srv.SteppedUp(); n != 1 {
		t.Errorf("the server refused %d requests for want of the scope, want 1", n)
	}
	asked := srv.ScopesAsked()
	if len(asked) != 2 {
		t.Fatalf("the authorization server was asked %d times: %q", len(asked), asked)
	}
	for _, scope := range []string{"mcp", "offline_access", "admin"} {
		if !strings.Contains(" "+asked[1]+" ", " "+scope+" ") {
			t.Errorf("the step-up asked for %q, want the union of the scopes held and asked, with %s", asked[1], scope)
		}
	}
	if want := `the server at ` + srv.MCPURL() + ` asks for the scope "admin" for this request (403 insufficient_scope: the tool admin needs the scope admin): signing in again for "admin mcp offline_access"`; !strings.Contains(n.String(), want) {
		t.Errorf("notices:\n%s\nwant %q", n.String(), want)
	}
	var results []string
	for _, sp := range rec.Snapshot().Spans {
		if sp.Method == "tools/call" {
			results = append(results, string(sp.Result))
		}
	}
	if len(results) != 4 || !strings.Contains(results[1], "administering") {
		t.Errorf("the recorded calls' results: %q", results)
	}
}

// TestStepUpBounded: a step-up that cannot help ends the call with an
// error that names the scope, after one more sign-in at most, and never
// loops: the authorization server withholds the scope, or the server
// refuses again whatever the token holds.
func TestStepUpBounded(t *testing.T) {
	tests := []struct {
		name   string
		opts   oauthtest.Options
		first  string // the error of the first call of admin
		second string // of the second
	}{
		{"scope withheld", oauthtest.Options{StepUpScope: "admin", Withhold: "admin"},
			`asks for the scope "admin" (403 insufficient_scope), but the authorization server granted only "mcp offline_access"`,
			`asks for the scope "admin" (403 insufficient_scope) again, and signing in again for "admin mcp offline_access" did not get it`},
		{"refused whatever the token", oauthtest.Options{StepUpScope: "admin", StepUpNever: true},
			`refused the request again (403 insufficient_scope, scope "admin") with a token granted "admin mcp offline_access"`,
			`but the token already holds "admin mcp offline_access": the server wants more than it names`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := oauthtest.New(tt.opts)
			t.Cleanup(srv.Close)
			c, sec, b, err := signIn(t, srv, oauth.Config{})
			if err != nil {
				t.Fatal(err)
			}
			s, _ := session(t, srv, c, sec)
			for i, want := range []string{tt.first, tt.second} {
				out := call(t, s, "admin")
				if !strings.Contains(out.Failure, want) {
					t.Errorf("call %d of admin failed with %q\nwant it to say %q", i+1, out.Failure, want)
				}
				if out.Lost {
					t.Errorf("call %d of admin ended the session", i+1)
				}
			}
			if out := call(t, s, "whoami"); out.Failure != "" {
				t.Errorf("whoami after the refusals: %s", out.Failure)
			}
			if opened, _, _ := b.last(); opened != 2 {
				t.Errorf("the browser was opened %d times, want 2: one step-up, not one per refusal", opened)
			}
		})
	}
}

// TestStepUpConcurrentCalls: calls refused at the same time share one
// step-up: the browser opens once more, not once per call, and every
// call succeeds.
func TestStepUpConcurrentCalls(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{StepUpScope: "admin"})
	t.Cleanup(srv.Close)
	c, sec, b, err := signIn(t, srv, oauth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := session(t, srv, c, sec)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := load.Run(ctx, []*engine.Session{s}, load.Workload{Tool: "admin", Calls: 8, Concurrency: 8}, nil)
	if err != nil || res.OK != 8 {
		t.Fatalf("8 calls of admin at once: %+v %v", res, err)
	}
	if opened, _, _ := b.last(); opened != 2 {
		t.Errorf("the browser was opened %d times, want 2: one step-up for all the calls", opened)
	}
	if n := len(srv.ScopesAsked()); n != 2 {
		t.Errorf("the authorization server was asked %d times, want 2", n)
	}
}

// TestStepUpOverSSE: a legacy HTTP+SSE server's 403 insufficient_scope
// to a posted message is stepped up the same way.
func TestStepUpOverSSE(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{StepUpScope: "admin"})
	t.Cleanup(srv.Close)
	var n notes
	c, sec, b, err := signIn(t, srv, oauth.Config{ServerURL: srv.SSEURL(), Notify: n.add})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := recorder.New(recorder.Meta{Title: "oauth"})
	sec.to(rec)
	s, err := engine.Connect(ctx, engine.Target{Transport: engine.TransportSSE, URL: srv.SSEURL(), HTTPAuth: c}, engine.DefaultAnswerPolicy(), rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, tool := range []string{"whoami", "admin", "whoami"} {
		if out := call(t, s, tool); out.Failure != "" {
			t.Fatalf("%s over SSE: %s\nnotices:\n%s", tool, out.Failure, n.String())
		}
	}
	if opened, _, _ := b.last(); opened != 2 || srv.SteppedUp() != 1 {
		t.Errorf("browser opened %d times, server refused %d requests; want 2 and 1", opened, srv.SteppedUp())
	}
}

// TestStepUpFromARememberedToken: a token taken from the keyring keeps
// its scopes, so a step-up asks for them again with the new one.
func TestStepUpFromARememberedToken(t *testing.T) {
	srv := oauthtest.New(oauthtest.Options{StepUpScope: "admin"})
	t.Cleanup(srv.Close)
	kr := &memKeyring{}
	if _, _, _, err := signIn(t, srv, oauth.Config{Keyring: kr, Remember: true}); err != nil {
		t.Fatal(err)
	}
	c, sec, b, err := signIn(t, srv, oauth.Config{Keyring: kr, Remember: true})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := session(t, srv, c, sec)
	if out := call(t, s, "admin"); out.Failure != "" {
		t.Fatalf("admin: %s", out.Failure)
	}
	if opened, _, _ := b.last(); opened != 1 {
		t.Errorf("the second client opened the browser %d times, want once (the step-up)", opened)
	}
	asked := srv.ScopesAsked()
	if last := " " + asked[len(asked)-1] + " "; !strings.Contains(last, " mcp ") || !strings.Contains(last, " admin ") {
		t.Errorf("the step-up from the remembered token asked for %q, want mcp and admin", asked[len(asked)-1])
	}
}
