package extract

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// prescanBytes is how far into the body a <meta> charset declaration is
// looked for, as in the HTML standard's prescan.
const prescanBytes = 1024

// toUTF8 decodes body to UTF-8 and returns the encoding's name. It never
// fails: invalid bytes become U+FFFD. A valid UTF-8 body is returned
// without a copy.
func toUTF8(body []byte, contentType string) ([]byte, string) {
	label := ""
	switch {
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		body, label = body[3:], "utf-8"
	case bytes.HasPrefix(body, []byte("\xfe\xff")):
		label = "utf-16be"
	case bytes.HasPrefix(body, []byte("\xff\xfe")):
		label = "utf-16le"
	}
	name := ""
	if label != "" {
		_, name = charset.Lookup(label)
	}
	if name == "" {
		if _, params, err := mime.ParseMediaType(contentType); err == nil {
			if _, n := charset.Lookup(params["charset"]); n != "" {
				name = n
			}
		}
	}
	if name == "" {
		if _, n := charset.Lookup(prescan(body)); n != "" {
			name = n
			// A page cannot declare itself UTF-16 from inside (HTML
			// standard, prescan): it is ASCII-compatible or it would not
			// have been readable.
			if strings.HasPrefix(n, "utf-16") {
				name = "utf-8"
			}
		}
	}
	if name == "" {
		name = "windows-1252"
		if utf8.Valid(body) {
			name = "utf-8"
		}
	}
	if name == "utf-8" {
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), name
	}
	enc, _ := charset.Lookup(name)
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), "utf-8"
	}
	if !utf8.Valid(out) {
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	}
	return bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")), name
}

// prescan returns the charset label a <meta> element declares in the first
// prescanBytes of body, or "".
func prescan(body []byte) string {
	if len(body) > prescanBytes {
		body = body[:prescanBytes]
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var cs, equiv, content string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					cs = string(v)
				case "http-equiv":
					equiv = string(v)
				case "content":
					content = string(v)
				}
			}
			if cs != "" {
				return strings.TrimSpace(cs)
			}
			if strings.EqualFold(strings.TrimSpace(equiv), "content-type") {
				if l := charsetFromContent(content); l != "" {
					return l
				}
			}
		}
	}
}

// charsetFromContent extracts the charset from a Content-Type value as the
// HTML standard's algorithm does ("text/html; charset='x'").
func charsetFromContent(s string) string {
	for {
		i := indexFold(s, "charset")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i+len("charset"):], " \t\n\f\r")
		if !strings.HasPrefix(s, "=") {
			continue
		}
		s = strings.TrimLeft(s[1:], " \t\n\f\r")
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			if j := strings.IndexByte(s[1:], q); j >= 0 {
				return s[1 : 1+j]
			}
			return ""
		}
		if j := strings.IndexAny(s, " \t\n\f\r;"); j >= 0 {
			s = s[:j]
		}
		return s
	}
}

// indexFold returns the index of the first instance of the lowercase ASCII
// word in s, ignoring ASCII case, or -1.
func indexFold(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return i
		}
	}
	return -1
}
