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
	if len(rawQuery) > 4*MaxPhraseBytes+256 {
		return impression{}, fmt.Errorf("%w: query of %d bytes", ErrBadClick, len(rawQuery))
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return impression{}, fmt.Errorf("%w: %v", ErrBadClick, err)
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
		return impression{}, fmt.Errorf("%w: parameter %s must appear once", ErrBadClick, wrong[0])
	default:
		return impression{}, fmt.Errorf("%w: parameters %s must each appear once", ErrBadClick, strings.Join(wrong, ", "))
	}
	if len(imp.ID) != b64.EncodedLen(impressionIDBytes) || strings.ContainsFunc(imp.ID, notB64) {
		return impression{}, fmt.Errorf("%w: bad impression id", ErrBadClick)
	}
	if imp.Ad, err = strconv.ParseUint(ad, 10, 64); err != nil {
		return impression{}, fmt.Errorf("%w: bad ad id", ErrBadClick)
	}
	b, err := strconv.ParseInt(bid, 10, 64)
	if err != nil || b <= 0 {
		return impression{}, fmt.Errorf("%w: bad bid", ErrBadClick)
	}
	imp.Bid = Money(b)
	if imp.Issued, err = strconv.ParseInt(issued, 10, 64); err != nil || imp.Issued < 0 {
		return impression{}, fmt.Errorf("%w: bad time", ErrBadClick)
	}
	if len(phrase) > MaxPhraseBytes {
		return impression{}, fmt.Errorf("%w: phrase too long", ErrBadClick)
	}
	imp.Phrase = phrase
	want := s.sign(imp)
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return impression{}, fmt.Errorf("%w: signature does not verify", ErrBadClick)
	}
	return imp, nil
}

func notB64(r rune) bool {
	return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
}
