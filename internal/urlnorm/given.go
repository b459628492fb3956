package urlnorm

import (
	"errors"
	"fmt"
	"strings"
)

// ErrControl is returned by NormalizeGiven, wrapped with the URL, the
// character and where it is, for a URL holding an ASCII control
// character.
var ErrControl = errors.New("urlnorm: control character")

// GivenRule is what NormalizeGiven asks of a URL beyond what Normalize
// does, worded to follow "a URL with".
const GivenRule = "no ASCII control character (0x00–0x1F or 0x7F) other than leading or trailing space, tab, CR or LF"

// NormalizeGiven is Normalize for URLs a user types or an API is sent
// (seeds, feed subscriptions, a page looked up), not links in pages. A
// link's stray control characters are dropped as browsers drop them, but
// a given URL holding one (a NUL, an escape, a tab inside it) was not
// meant as the URL that dropping them leaves: it is refused with
// ErrControl rather than taken for another. Surrounding space, tab, CR and
// LF, which a copy and paste leaves, are still trimmed.
func NormalizeGiven(raw string) (string, error) {
	const around = " \t\r\n"
	lead := len(raw) - len(strings.TrimLeft(raw, around))
	inner := strings.TrimRight(raw[lead:], around)
	for i := 0; i < len(inner); i++ {
		if c := inner[i]; c < ' ' || c == 0x7f {
			return "", fmt.Errorf("%w: %s has 0x%02X at byte %d; a URL given must have %s", ErrControl, Quote(raw), c, lead+i, GivenRule)
		}
	}
	return Normalize(raw)
}
