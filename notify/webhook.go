package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Header names of a webhook request.
const (
	HeaderIdempotency = "Idempotency-Key"
	HeaderTimestamp   = "Deltaq-Timestamp"
	HeaderSignature   = "Deltaq-Signature"
)

// Sign returns the signature header value of a webhook body sent at ts:
// "sha256=" + hex(HMAC-SHA256(secret, ts + "." + body)). Binding the
// timestamp lets a receiver refuse replays of old requests.
func Sign(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a webhook request's signature in constant time.
func Verify(secret []byte, ts string, body []byte, signature string) bool {
	return hmac.Equal([]byte(Sign(secret, ts, body)), []byte(signature))
}

// postWebhook sends one notification; only a 2xx answer is success, and
// a redirect is not followed.
func postWebhook(ctx context.Context, client *http.Client, secret []byte, d *delivery, now time.Time, timeout time.Duration) error {
	body, err := json.Marshal(&d.N)
	if err != nil {
		return fmt.Errorf("notify: encode webhook body: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Target.Addr, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("notify: webhook %s: %w", d.Target.Addr, err)
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderIdempotency, d.N.ID)
	req.Header.Set(HeaderTimestamp, ts)
	req.Header.Set(HeaderSignature, Sign(secret, ts, body))
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("notify: webhook %s: %w", d.Target.Addr, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	if resp.StatusCode/100 == 3 {
		return fmt.Errorf("notify: webhook %s: status %d, a redirect to %q, which a webhook does not follow (give the URL it leads to)",
			d.Target.Addr, resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notify: webhook %s: status %d", d.Target.Addr, resp.StatusCode)
	}
	return nil
}
