//go:build !unix

package outfile

import "os"

// checkSpecial accepts a device: where permissions are not Unix ones,
// only opening it would tell, and [Write] says so when it cannot.
func checkSpecial(string, os.FileInfo) error { return nil }
