package ranking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/deltaq/deltaq/internal/excerpt"
)

// RedirectPath is where result links point; package web serves it.
const RedirectPath = "/r"

// MaxQueryLen bounds the query carried by a click link, in bytes.
const MaxQueryLen = 4096

// MaxLinkQueryLen bounds a click link's whole query string, in bytes: the
// longest Link writes, every byte of the user, the query and the target
// escaped (%XX), the largest rank and the signature. Verify refuses a
// longer one before it parses it, as ads.ClickPath refuses a click URL
// over its own bound.
const MaxLinkQueryLen = len(paramUser+"=&"+paramRank+"=&"+paramQuery+"=&"+paramSig+"=&"+paramTarget+"=") +
	3*(MaxUserIDLen+MaxQueryLen+MaxURLLen) + maxRankDigits + signatureLen

const (
	// maxRankDigits is the length of MaxCandidates, the largest rank.
	maxRankDigits = 6
	// signatureLen is the length of a signature, base64 without padding.
	signatureLen = (sha256.Size*8 + 5) / 6
)

// maxExcerpt is the most characters of a parameter's name or value an
// error repeats: a bad link may be MaxLinkQueryLen bytes long.
const maxExcerpt = 60

// Errors from Verify.
var (
	ErrBadLink      = errors.New("ranking: malformed click link")
	ErrBadSignature = errors.New("ranking: bad click signature")
)

// BadLinkError is a malformed click link: the parameter at fault (or
// "query" for the whole query string), its value where showing it helps,
// and what it must be. A name or value is cut to maxExcerpt characters.
// It matches ErrBadLink.
type BadLinkError struct {
	Field, Value, Limit string
}

func (e *BadLinkError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%v: %s: %s", ErrBadLink, e.Field, e.Limit)
	}
	return fmt.Sprintf("%v: %s = %s: %s", ErrBadLink, e.Field, e.Value, e.Limit)
}

func (e *BadLinkError) Unwrap() error { return ErrBadLink }

// Click is what a result link carries: the target, the query it answered,
// the 1-based rank it was shown at, and the user it was shown to.
type Click struct {
	Target string
	Query  string
	Rank   int
	User   string
}

// Signer signs and verifies click links with HMAC-SHA256 under the server
// secret, so the redirect only sends users to targets the searcher put on
// a result page (no open redirect) and clicks cannot be forged for other
// pages, ranks or users.
type Signer struct {
	mac *keyedMAC
}

// NewSigner returns a Signer keyed by secret (at least MinSecretLen bytes).
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("ranking: signing secret of %d bytes: must be at least %d", len(secret), MinSecretLen)
	}
	return &Signer{mac: newKeyedMAC(secret)}, nil
}

// The parameters of a click link; no others are accepted.
const (
	paramTarget = "u"
	paramQuery  = "q"
	paramRank   = "n"
	paramUser   = "id"
	paramSig    = "s"
)

// appendClickMessage appends what c's signature authenticates to b.
func appendClickMessage(b []byte, c Click) []byte {
	var digits [20]byte
	b = appendField(b, "click")
	b = appendField(b, c.Target)
	b = appendField(b, c.Query)
	b = appendField(b, strconv.AppendInt(digits[:0], int64(c.Rank), 10))
	return appendField(b, c.User)
}

func (s *Signer) sign(c Click) [sha256.Size]byte {
	return s.mac.sum(appendClickMessage(make([]byte, 0, 64+len(c.Target)+len(c.Query)+len(c.User)), c))
}

// Link returns the signed redirect link for c: RedirectPath with the
// target, query, rank, user and signature as query parameters, in
// url.Values.Encode's form (keys in order, values query-escaped), written
// out directly: a result page signs ten.
func (s *Signer) Link(c Click) string {
	link, _ := s.appendLink(nil, c, appendQueryEscape(nil, c.User), appendQueryEscape(nil, c.Query), nil)
	return string(link)
}

// appendLink appends Link(c) to b, given c's user and query
// query-escaped (the links of a page share them); msg is a buffer for the
// signed message, returned grown, so a page's links are written without
// an allocation each.
func (s *Signer) appendLink(b []byte, c Click, user, query []byte, msg []byte) (_, _ []byte) {
	msg = appendClickMessage(msg[:0], c)
	sig := s.mac.sum(msg)
	b = append(b, RedirectPath+"?"+paramUser+"="...)
	b = append(b, user...)
	b = append(b, "&"+paramRank+"="...)
	b = strconv.AppendInt(b, int64(c.Rank), 10)
	b = append(b, "&"+paramQuery+"="...)
	b = append(b, query...)
	b = append(b, "&"+paramSig+"="...)
	b = base64.RawURLEncoding.AppendEncode(b, sig[:])
	b = append(b, "&"+paramTarget+"="...)
	return appendQueryEscape(b, c.Target), msg
}

// queryUnescaped marks the bytes url.QueryEscape writes as they are.
var queryUnescaped = func() (keep [256]bool) {
	for c := range 256 {
		keep[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~'
	}
	return keep
}()

// appendQueryEscape appends s as url.QueryEscape escapes it: letters,
// digits and -_.~ as they are, a space as +, every other byte as %XX
// (upper-case hex).
func appendQueryEscape(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if queryUnescaped[c] {
			continue
		}
		b = append(b, s[start:i]...)
		if c == ' ' {
			b = append(b, '+')
		} else {
			b = append(b, '%', hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// Verify checks a click link's raw query string and returns the click it
// carries. It fails with ErrBadLink if the query string is longer than
// MaxLinkQueryLen, a parameter is missing, repeated, unknown or out of
// bounds, or the target is not an absolute http(s) URL, and with
// ErrBadSignature if the signature does not match (compared in constant
// time).
func (s *Signer) Verify(rawQuery string) (Click, error) {
	if len(rawQuery) > MaxLinkQueryLen {
		return Click{}, &BadLinkError{Field: "query", Value: fmt.Sprintf("(%d bytes)", len(rawQuery)), Limit: fmt.Sprintf("at most %d bytes", MaxLinkQueryLen)}
	}
	params := []string{paramTarget, paramQuery, paramRank, paramUser, paramSig}
	v, err := url.ParseQuery(rawQuery)
	if err != nil {
		return Click{}, &BadLinkError{Field: "query", Value: fmt.Sprintf("(%d bytes)", len(rawQuery)), Limit: "a query string: " + err.Error()}
	}
	for k, vs := range v {
		if !slices.Contains(params, k) {
			return Click{}, &BadLinkError{Field: excerpt.Of(k, maxExcerpt), Limit: "not a parameter of a click link (" + strings.Join(params, ", ") + ")"}
		}
		if len(vs) != 1 {
			return Click{}, &BadLinkError{Field: k, Value: excerpt.Of(strings.Join(vs, ", "), maxExcerpt), Limit: fmt.Sprintf("given %d times: once", len(vs))}
		}
	}
	for _, k := range params {
		if _, ok := v[k]; !ok {
			return Click{}, &BadLinkError{Field: k, Limit: "missing"}
		}
	}
	c := Click{Target: v.Get(paramTarget), Query: v.Get(paramQuery), User: v.Get(paramUser)}
	if c.Rank, err = strconv.Atoi(v.Get(paramRank)); err != nil || c.Rank < 1 || c.Rank > MaxCandidates {
		return Click{}, &BadLinkError{Field: paramRank, Value: excerpt.Of(v.Get(paramRank), maxExcerpt), Limit: fmt.Sprintf("an integer in [1, %d]", MaxCandidates)}
	}
	if len(c.Query) > MaxQueryLen {
		return Click{}, &BadLinkError{Field: paramQuery, Value: fmt.Sprintf("(%d bytes)", len(c.Query)), Limit: fmt.Sprintf("at most %d bytes", MaxQueryLen)}
	}
	if limit, ok := clickURLOK(c.Target); !ok {
		return Click{}, &BadLinkError{Field: paramTarget, Value: fmt.Sprintf("(%d bytes)", len(c.Target)), Limit: limit}
	}
	if limit, ok := clickUserOK(c.User); !ok {
		return Click{}, &BadLinkError{Field: paramUser, Value: fmt.Sprintf("(%d bytes)", len(c.User)), Limit: limit}
	}
	if u, err := url.Parse(c.Target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Click{}, &BadLinkError{Field: paramTarget, Value: excerpt.Of(c.Target, maxExcerpt), Limit: "an absolute http(s) URL"}
	}
	mac := s.sign(c)
	sig, err := base64.RawURLEncoding.DecodeString(v.Get(paramSig))
	if err != nil || !hmac.Equal(sig, mac[:]) {
		return Click{}, ErrBadSignature
	}
	return c, nil
}
