package oauth

import "github.com/zalando/go-keyring"

// KeyringNotFound is the keyring's "no such entry", for the tests' keyring.
var KeyringNotFound = keyring.ErrNotFound
