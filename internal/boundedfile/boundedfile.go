// Package boundedfile reads a whole file that a user names, up to a
// bound: a file without end (/dev/zero) or a mistaken huge one is refused
// before it exhausts memory.
package boundedfile

import (
	"fmt"
	"io"
	"os"
)

// Read reads the file name, of at most max bytes; what names the file in
// the error of a larger one ("a configuration file").
func Read(name string, max int64, what string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: over %d bytes (%d MiB), the most %s may hold", name, max, max>>20, what)
	}
	return data, nil
}
