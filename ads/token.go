package ads

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// ClickPath is where click URLs point; package web serves it with Click
// there.
const ClickPath = "/c"

// ErrBadClick is returned for a click URL that is malformed or whose
// signature does not verify.
var ErrBadClick = errors.New("ads: bad click url")

// BadClickError is a click URL refused: the parameter, what it held and
// what it must be. It wraps ErrBadClick.
type BadClickError struct {
	Field string // a query parameter, or "query" for the whole
	Value string // "" when showing it would not help (a signature)
	Limit string
}

func (e *BadClickError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%v: %s: %s", ErrBadClick, e.Field, e.Limit)
	}
	return fmt.Sprintf("%v: %s = %s: %s", ErrBadClick, e.Field, e.Value, e.Limit)
}

func (e *BadClickError) Unwrap() error { return ErrBadClick }

// maxClickQuery bounds a click URL's query: room for the longest phrase
// escaped and the other parameters.
const maxClickQuery = 4*MaxPhraseBytes + 256

// impression is what a click URL carries: one display of one ad for one
// phrase, at the bid it had then. The URL is signed with HMAC-SHA-256
// under the server secret, so none of it can be forged or altered: the
// charge is the bid in the URL, and the impression id makes a repeated
// click recognizable.
type impression struct {
	ID     string // 16 base64url characters: 96 random bits
	Ad     uint64
	Phrase string
	Bid    Money
	Issued int64 // Unix seconds
}

const (
	impressionIDBytes = 12
	sigBytes          = 16 // a 128-bit tag
)

var b64 = base64.RawURLEncoding

// clickSigner issues and verifies signed click URLs. It holds no state
// beyond its key, so it needs no lock of the Store's.
type clickSigner struct {
	secret []byte
	random io.Reader
	macs   sync.Pool // hash.Hash: HMAC-SHA-256 keyed with secret
}

func newClickSigner(secret []byte, random io.Reader) *clickSigner {
	c := &clickSigner{secret: secret, random: random}
	c.macs.New = func() any { return hmac.New(sha256.New, c.secret) }
	return c
}

func (s *clickSigner) newImpressionID() (string, error) {
	var b [impressionIDBytes]byte
	if _, err := io.ReadFull(s.random, b[:]); err != nil {
		return "", fmt.Errorf("ads: impression id: %w", err)
	}
	return b64.EncodeToString(b[:]), nil
}

// sign returns the URL-safe HMAC of imp. The phrase goes last because it is
// the only field that may contain the separator.
func (s *clickSigner) sign(imp impression) string {
	m := s.macs.Get().(hash.Hash)
	defer s.macs.Put(m)
	m.Reset()
	var buf [128]byte
	b := append(buf[:0], "deltaq-click-v1|"...)
	b = append(b, imp.ID...)
	b = append(b, '|')
	b = strconv.AppendUint(b, imp.Ad, 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(imp.Bid), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, imp.Issued, 10)
	b = append(b, '|')
	m.Write(b)
	m.Write([]byte(imp.Phrase))
	var sum [sha256.Size]byte
	return b64.EncodeToString(m.Sum(sum[:0])[:sigBytes])
}

// clickURL returns the relative click URL of imp.
func (s *clickSigner) clickURL(imp impression) string {
	var b strings.Builder
	b.Grow(len(ClickPath) + 96 + 3*len(imp.Phrase))
	b.WriteString(ClickPath)
	b.WriteString("?i=")
	b.WriteString(imp.ID)
	b.WriteString("&a=")
	b.WriteString(strconv.FormatUint(imp.Ad, 10))
	b.WriteString("&p=")
	b.WriteString(url.QueryEscape(imp.Phrase))
	b.WriteString("&b=")
	b.WriteString(strconv.FormatInt(int64(imp.Bid), 10))
	b.WriteString("&t=")
	b.WriteString(strconv.FormatInt(imp.Issued, 10))
	b.WriteString("&s=")
	b.WriteString(s.sign(imp))
	return b.String()
}

// parseClick decodes and verifies the query of a click URL.
func (s *clickSigner) parseClick(rawQuery string) (impression, error) {
	if len(rawQuery) > maxClickQuery {
		return impression{}, &BadClickError{Field: "query", Value: fmt.Sprintf("(%d bytes)", len(rawQuery)), Limit: fmt.Sprintf("must have at most %d bytes", maxClickQuery)}
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return impression{}, &BadClickError{Field: "query", Value: strconv.Quote(rawQuery), Limit: "must be a URL query (" + err.Error() + ")"}
	}
	var imp impression
	var wrong []string // the parameters not given exactly once
	get := func(k string) string {
		if vs := q[k]; len(vs) == 1 {
			return vs[0]
		}
		wrong = append(wrong, k)
		return ""
	}
	imp.ID = get("i")
	ad, bid, issued, phrase, sig := get("a"), get("b"), get("t"), get("p"), get("s")
	switch len(wrong) {
	case 0:
	case 1:
		return impression{}, &BadClickError{Field: wrong[0], Value: fmt.Sprintf("(given %d times)", len(q[wrong[0]])), Limit: "must appear exactly once"}
	default:
		return impression{}, &BadClickError{Field: strings.Join(wrong, ", "), Limit: "must each appear exactly once"}
	}
	if len(imp.ID) != b64.EncodedLen(impressionIDBytes) || strings.ContainsFunc(imp.ID, notB64) {
		return impression{}, &BadClickError{Field: "i", Value: strconv.Quote(imp.ID), Limit: fmt.Sprintf("must be %d base64url characters", b64.EncodedLen(impressionIDBytes))}
	}
	if imp.Ad, err = strconv.ParseUint(ad, 10, 64); err != nil {
		return impression{}, &BadClickError{Field: "a", Value: strconv.Quote(ad), Limit: "must be an ad id (a whole number)"}
	}
	b, err := strconv.ParseInt(bid, 10, 64)
	if err != nil || b <= 0 {
		return impression{}, &BadClickError{Field: "b", Value: strconv.Quote(bid), Limit: "must be a bid in micros (a whole number > 0)"}
	}
	imp.Bid = Money(b)
	if imp.Issued, err = strconv.ParseInt(issued, 10, 64); err != nil || imp.Issued < 0 {
		return impression{}, &BadClickError{Field: "t", Value: strconv.Quote(issued), Limit: "must be a time in Unix seconds (a whole number >= 0)"}
	}
	if len(phrase) > MaxPhraseBytes {
		return impression{}, &BadClickError{Field: "p", Value: fmt.Sprintf("(%d bytes)", len(phrase)), Limit: fmt.Sprintf("must have at most %d bytes", MaxPhraseBytes)}
	}
	imp.Phrase = phrase
	want := s.sign(imp)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return impression{}, &BadClickError{Field: "s", Limit: "must be this server's signature of the other parameters"}
	}
	return imp, nil
}

func notB64(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
}
