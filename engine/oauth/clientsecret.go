package oauth

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ClientSecretService is the service name under which a confidential
// client's secret is kept in the OS keyring, one entry per client id
// (the account).
const ClientSecretService = "fanout-inspector-oauth-client"

// ReadClientSecret reads the secret of the confidential client clientID
// from where source says it is kept: "env:NAME", the environment
// variable NAME; or "keyring", the entry of clientID under
// [ClientSecretService] in kr (nil: the OS keyring). The secret itself is
// not a source: on a command line the process list and the shell's
// history would show it. The error never holds source's value, which
// may be a secret given by mistake.
func ReadClientSecret(source, clientID string, kr Keyring) (string, error) {
	source = strings.TrimSpace(source)
	if clientID == "" {
		return "", errors.New("a client secret belongs to a client registered beforehand: give its client id too")
	}
	switch {
	case strings.HasPrefix(source, "env:"):
		name := strings.TrimPrefix(source, "env:")
		if name == "" || strings.ContainsAny(name, "= ") {
			return "", fmt.Errorf("env:%s: want the name of an environment variable, as in env:MY_CLIENT_SECRET", name)
		}
		secret := strings.TrimSpace(os.Getenv(name))
		if secret == "" {
			return "", fmt.Errorf("the environment variable %s, which should hold the client secret, is not set or empty: export it first", name)
		}
		return secret, nil
	case source == "keyring":
		if kr == nil {
			kr = OSKeyring{}
		}
		secret, err := kr.Get(ClientSecretService, clientID)
		if errors.Is(err, ErrNotRemembered) {
			return "", fmt.Errorf("the OS keyring holds no secret for the client %s (service %s, account %s): store it there first, "+
				"as in secret-tool store --label 'Fanout Inspector client secret' service %s username %s", clientID, ClientSecretService, clientID, ClientSecretService, clientID)
		}
		if err != nil {
			return "", fmt.Errorf("the OS keyring is not available (%v): keep the client secret in an environment variable instead (env:NAME)", err)
		}
		if secret = strings.TrimSpace(secret); secret == "" {
			return "", fmt.Errorf("the OS keyring's secret for the client %s is empty", clientID)
		}
		return secret, nil
	}
	return "", errors.New("want env:NAME (an environment variable that holds the client secret) or keyring (the OS keyring's entry for the client id); " +
		"the secret itself is not taken here, where the process list and the shell's history would show it")
}

// Registration is how the client is known to the authorization server,
// as a person gives it on a command line or in the app: all empty means
// dynamic registration.
type Registration struct {
	// ClientID is a client id registered beforehand.
	ClientID string
	// SecretSource says where a confidential client's secret is kept, as
	// [ReadClientSecret] takes it: env:NAME or keyring.
	SecretSource string
	// TokenAuthMethod is [ClientSecretBasic], [ClientSecretPost] or
	// empty (from the authorization server's metadata).
	TokenAuthMethod string
	// MetadataURL is the https URL of the client's metadata document.
	MetadataURL string
}

// Registration fields, for [RegistrationError.Field].
const (
	FieldClientID        = "client id"
	FieldClientSecret    = "client secret"
	FieldTokenAuthMethod = "token endpoint authentication"
	FieldMetadataURL     = "client metadata URL"
)

// RegistrationError is a [Registration] that cannot work: Field is the
// setting at fault, for the face to name it as its person knows it (a
// flag, a field).
type RegistrationError struct {
	Field string
	Err   error
}

func (e *RegistrationError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *RegistrationError) Unwrap() error { return e.Err }

// Apply checks r and sets it on cfg, reading the client secret from its
// source (kr: where "keyring" looks; nil means the OS keyring). Its
// errors are [RegistrationError]s.
func (r Registration) Apply(cfg *Config, kr Keyring) error {
	id, source := strings.TrimSpace(r.ClientID), strings.TrimSpace(r.SecretSource)
	method, doc := strings.TrimSpace(r.TokenAuthMethod), strings.TrimSpace(r.MetadataURL)
	switch method {
	case "", ClientSecretBasic, ClientSecretPost:
	default:
		return &RegistrationError{FieldTokenAuthMethod, fmt.Errorf("%q: want %s or %s", method, ClientSecretBasic, ClientSecretPost)}
	}
	if method != "" && source == "" {
		return &RegistrationError{FieldTokenAuthMethod, errors.New("it is how a confidential client sends its secret: give the client secret's source too")}
	}
	if doc != "" {
		if err := CheckClientMetadataURL(doc); err != nil {
			return &RegistrationError{FieldMetadataURL, err}
		}
	}
	cfg.ClientID, cfg.TokenAuthMethod, cfg.ClientMetadataURL, cfg.ClientSecret = id, method, doc, ""
	if source == "" {
		return nil
	}
	if id == "" {
		return &RegistrationError{FieldClientSecret, errors.New("a secret belongs to a client registered beforehand: give its client id too")}
	}
	secret, err := ReadClientSecret(source, id, kr)
	if err != nil {
		return &RegistrationError{FieldClientSecret, err}
	}
	cfg.ClientSecret = secret
	return nil
}
