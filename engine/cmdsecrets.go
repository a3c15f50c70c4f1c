package engine

import (
	"regexp"
	"strings"

	"github.com/google/shlex"
)

// secretName matches the names of flags and variables whose value is a
// credential: --api-key, --token, PASSWORD=, --client-secret…
var secretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|api[-_]?key|apikey|auth|credential|private[-_]?key|access[-_]?key|session[-_]?key|cookie)`)

// CommandSecrets returns the credential-like values on a server's command
// line, which the recording must not carry: the value of a flag or an
// assignment whose name looks like a credential's (--api-key K,
// --token=T, API_KEY=V as a leading environment assignment) and the
// token of an "Authorization: Bearer T"-like argument. The command line
// itself is kept (it says what was run), with these values scrubbed.
func CommandSecrets(cmdline string) []string {
	words, err := shlex.Split(cmdline)
	if err != nil {
		words = strings.Fields(cmdline)
	}
	var out []string
	for i, w := range words {
		name, value, assigned := strings.Cut(w, "=")
		switch {
		case assigned && secretName.MatchString(name) && value != "":
			out = append(out, value)
		case !assigned && strings.HasPrefix(w, "-") && secretName.MatchString(w) && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-"):
			out = append(out, words[i+1])
		case strings.HasPrefix(strings.ToLower(w), "bearer ") || strings.HasPrefix(strings.ToLower(w), "authorization:"):
			if f := strings.Fields(w); len(f) > 1 {
				out = append(out, f[len(f)-1])
			}
		}
	}
	return out
}
