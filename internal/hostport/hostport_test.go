package hostport

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		addr, host string
		port       int
		err        string
	}{
		{"127.0.0.1:8080", "127.0.0.1", 8080, ""},
		{":0", "", 0, ""},
		{"[::1]:65535", "::1", 65535, ""},
		{"localhost:99999", "", 0, `the port "99999" is not a number from 0 to 65535`},
		{"localhost:-1", "", 0, `the port "-1" is not`},
		{"localhost:http", "", 0, `the port "http" is not`},
		{"localhost", "", 0, "missing port in address"},
		{"a:b:c", "", 0, "too many colons in address"},
	} {
		host, port, err := Split(tc.addr)
		if tc.err == "" && (err != nil || host != tc.host || port != tc.port) {
			t.Errorf("Split(%q) = %q, %d, %v; want %q, %d", tc.addr, host, port, err, tc.host, tc.port)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Split(%q) error %v, want %q", tc.addr, err, tc.err)
		}
	}
}
