package recorder

import (
	"errors"
	"io"
)

// Save writes snap as a recording file.
func Save(w io.Writer, snap *Snapshot) error { return errors.New("not yet") }

// SaveFile writes snap to path atomically.
func SaveFile(path string, snap *Snapshot) error { return errors.New("not yet") }

// Load reads a recording file or a journal.
func Load(r io.Reader) (*Snapshot, error) { return nil, errors.New("not yet") }

// LoadFile reads a recording file or a journal from path.
func LoadFile(path string) (*Snapshot, error) { return nil, errors.New("not yet") }
