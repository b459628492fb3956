package robots

import "github.com/deltaq/deltaq/internal/urlnorm"

// normalize percent-normalizes a path or pattern (RFC 9309 §2.2.2) the way
// URLs are normalized everywhere else in deltaq.
func normalize(s string) string { return urlnorm.NormalizeEscapes(s) }
