package extract

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

func encode(t *testing.T, e encoding.Encoding, s string) string {
	t.Helper()
	b, err := e.NewEncoder().String(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCharset(t *testing.T) {
	pad := "<!-- " + strings.Repeat("padding ", 200) + "-->" // pushes content past the 1,024-byte prescan
	for _, tc := range []struct {
		name, body, contentType string
		wantText, wantCharset   string
	}{
		{"the Content-Type charset is used", encode(t, charmap.ISO8859_1, "<p>café crème</p>"), "text/html; charset=ISO-8859-1", "café crème", "windows-1252"},
		{"a meta charset is used", encode(t, charmap.Windows1251, `<meta charset="windows-1251"><p>Привет, мир</p>`), "text/html", "Привет, мир", "windows-1251"},
		{"a meta http-equiv is used", encode(t, japanese.ShiftJIS, `<meta http-equiv="Content-Type" content="text/html; charset='Shift_JIS'"><p>日本語のテキスト</p>`), "", "日本語のテキスト", "shift_jis"},
		{"the header wins over the meta", encode(t, charmap.ISO8859_1, `<meta charset="utf-8"><p>café</p>`), "text/html;charset=latin1", "café", "windows-1252"},
		{"a byte order mark wins over the header", "\xef\xbb\xbf<p>café</p>", "text/html; charset=windows-1252", "café", "utf-8"},
		{"UTF-16 with a byte order mark is decoded", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "<p>naïve</p>"), "", "naïve", "utf-16le"},
		{"an unknown header label falls back to the meta", encode(t, charmap.Windows1251, `<meta charset="windows-1251"><p>Да</p>`), "text/html; charset=x-klingon", "Да", "windows-1251"},
		{"an unknown meta label falls back to sniffing", `<meta charset="x-klingon"><p>ça va</p>`, "", "ça va", "utf-8"},
		{"a meta declaring UTF-16 means UTF-8", `<meta charset="utf-16"><p>ça</p>`, "", "ça", "utf-8"},
		{"undeclared valid UTF-8 is UTF-8 even past the prescan", pad + "<p>ça va</p>", "", "ça va", "utf-8"},
		{"undeclared invalid UTF-8 is windows-1252", "<p>caf\xe9 \x93quoted\x94</p>", "", "café “quoted”", "windows-1252"},
		{"invalid bytes in declared UTF-8 are replaced", "<p>a\xffb\xc3</p>", "text/html; charset=utf-8", "a\ufffdb\ufffd", "utf-8"},
		{"a meta after the prescan is not used", pad + `<meta charset="windows-1251"><p>plain</p>`, "", "plain", "utf-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := extract(t, tc.body, tc.contentType, "http://a.example/")
			if doc.Text != tc.wantText || doc.Charset != tc.wantCharset {
				t.Fatalf("Text %q, Charset %q; want %q, %q", doc.Text, doc.Charset, tc.wantText, tc.wantCharset)
			}
		})
	}
}

func TestCharsetFromContent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"text/html; charset=utf-8", "utf-8"},
		{"text/html; CHARSET = \"koi8-r\"", "koi8-r"},
		{"text/html; charset='x'; q=1", "x"},
		{"text/html; charset=iso-8859-2 foo", "iso-8859-2"},
		{"text/html; charsetx; charset=y", "y"},
		{"text/html", ""},
		{"charset=", ""},
		{"charset=\"unterminated", ""},
	} {
		if got := charsetFromContent(tc.in); got != tc.want {
			t.Errorf("charsetFromContent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
