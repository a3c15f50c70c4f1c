//go:build unix

package outfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// wOK asks access(2) about write permission.
const wOK = 2

// checkSpecial says why a device or named pipe cannot be written, without
// opening it.
func checkSpecial(path string, fi os.FileInfo) error {
	if fi.Mode()&fs.ModeSocket != 0 {
		return errors.New("it is a socket, which cannot be written as a file; name a file")
	}
	if err := syscall.Access(path, wOK); err != nil {
		return errors.New("it cannot be written (" + err.Error() + "); it is left as it is: name a file you may write")
	}
	return nil
}
