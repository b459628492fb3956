package extract

import (
	"mime"
	"net/http"
	"strings"
)

// BinaryType is the media type of a body that is no text, by its first
// 512 bytes as browsers sniff them (http.DetectContentType): a PDF, an
// image, an archive, or "application/octet-stream" for bytes no text has
// (a NUL, most control characters). It is "" for a body of text,
// whatever its type. A body served as a page of text that is one of
// these has no words: parsed as HTML, its bytes would be indexed and
// compared as garbage. (A gzip body may still be a .xml.gz sitemap,
// which crawler/sitemap decompresses.)
func BinaryType(body []byte) string {
	ct := http.DetectContentType(body)
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || strings.HasPrefix(mt, "text/") {
		return ""
	}
	return mt
}
