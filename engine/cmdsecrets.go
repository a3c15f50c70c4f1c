package engine

import (
	"regexp"
	"strings"

	"github.com/fanout-inspector/inspector/recorder"
	"github.com/google/shlex"
)

// secretName matches the names of flags, variables and headers whose
// value is a credential: --api-key, --key, --token, --pass, --pwd,
// --jwt, --secret-file, PASSWORD=, X-Auth-Token… A value found under
// such a name is a secret whatever it looks like (if it is at least
// [recorder.MinSecretLen] bytes long).
var secretName = regexp.MustCompile(`(?i)(token|secret|pass|pwd|key|auth|credential|cookie|jwt|bearer)`)

// IsSecretName reports whether a flag, an environment variable or a
// header named name holds a credential (see secretName).
func IsSecretName(name string) bool { return secretName.MatchString(name) }

// CommandSecrets returns the credential-like values on a server's command
// line, which the recording must not carry: the value of a flag or an
// assignment whose name looks like a credential's (--api-key K, --key K,
// --pass P, --jwt J, --token=T, API_KEY=V as a leading environment
// assignment) and the token of an "Authorization: Bearer T"-like
// argument. The command line itself is kept (it says what was run), with
// these values scrubbed.
func CommandSecrets(cmdline string) []string {
	words, err := shlex.Split(cmdline)
	if err != nil {
		words = strings.Fields(cmdline)
	}
	return argSecrets(words)
}

// argSecrets is [CommandSecrets] for a command line split into words
// already (a client config's args).
func argSecrets(words []string) []string {
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

// EnvSecrets returns the values of a server's KEY=VALUE environment
// entries that the recording must not carry: that of every variable
// named like a credential (API_KEY, GITHUB_TOKEN, DB_PASS), the
// credentials of a URL in any value, and any other value that
// [recorder.LooksSecret]. LOG_LEVEL=info, DEBUG=true and
// OUTPUT_FORMAT=text give none: registering them would blank ordinary
// words all over a recording.
func EnvSecrets(env []string) []string {
	var out []string
	for _, kv := range env {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		out = append(out, recorder.URLSecrets(v)...)
		if secretName.MatchString(name) || recorder.LooksSecret(v) {
			out = append(out, v)
		}
	}
	return out
}
