package extract

import "testing"

func TestBinaryTypeTellsBinaryBodiesFromText(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"html", "<!doctype html><html><body>hi</body></html>", ""},
		{"html after white space", "\n\n   <html><p>x</p></html>", ""},
		{"plain text", "just words, no markup", ""},
		{"UTF-8 with a BOM", "\xef\xbb\xbf<p>é</p>", ""},
		{"UTF-16 with a BOM", "\xfe\xff\x00<\x00p\x00>", ""},
		{"windows-1252", "caf\xe9 cr\xe8me", ""},
		{"XML", `<?xml version="1.0"?><rss/>`, ""},
		{"empty", "", ""},
		{"PDF", "%PDF-1.7\n1 0 obj << >> endobj", "application/pdf"},
		{"PNG", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "application/x-gzip"},
		{"zip", "PK\x03\x04\x14\x00\x00\x00", "application/zip"},
		{"NUL bytes", "abc\x00\x00\x00def", "application/octet-stream"},
	} {
		if got := BinaryType([]byte(c.body)); got != c.want {
			t.Errorf("%s: BinaryType = %q, want %q", c.name, got, c.want)
		}
	}
}
