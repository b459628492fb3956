package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrRefusedAddress is returned when a connection would reach a loopback,
// private, link-local or unspecified address and crawler.allow_private is
// off. The check runs on the address actually dialled, after DNS and after
// any --resolve mapping, so a hostile DNS answer cannot get around it.
var ErrRefusedAddress = errors.New("crawler: refused non-public address")

// RefusedError is the ErrRefusedAddress of one connection: the address
// dialled and what kind of address it is.
type RefusedError struct {
	Addr string // host:port dialled
	Kind string // loopback, private, link-local, ...
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%v: %s is a %s address", ErrRefusedAddress, e.Addr, e.Kind)
}

func (e *RefusedError) Unwrap() error { return ErrRefusedAddress }

// dialer maps hosts named in crawler.resolve to fixed addresses and guards
// every connection against non-public addresses.
type dialer struct {
	resolve      map[string]string // lower-case host → host:port
	allowPrivate bool
	net          net.Dialer
	through      func(ctx context.Context, network, addr string) (net.Conn, error) // Options.Dial
}

func newDialer(cfg Config) (*dialer, error) {
	d := &dialer{resolve: map[string]string{}, allowPrivate: cfg.AllowPrivate}
	for _, r := range cfg.Resolve {
		host, addr, err := ParseResolve(r)
		if err != nil {
			return nil, fmt.Errorf("crawler.resolve %q: %w", r, err)
		}
		d.resolve[host] = addr
	}
	d.net = net.Dialer{
		Timeout:   cfg.Timeouts.Connect,
		KeepAlive: 30 * time.Second,
		Control:   d.control,
	}
	return d, nil
}

// DialContext dials addr, or the address --resolve maps its host to.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if to, ok := d.resolve[strings.ToLower(host)]; ok {
		addr = to
	}
	if d.through != nil {
		return d.through(ctx, network, addr)
	}
	return d.net.DialContext(ctx, network, addr)
}

// control runs after name resolution, just before connect.
func (d *dialer) control(_, address string, _ syscall.RawConn) error {
	if d.allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Addr: address, Kind: "unparsable"}
	}
	if !public(ap.Addr()) {
		return &RefusedError{Addr: address, Kind: addressKind(ap.Addr())}
	}
	return nil
}

// addressKind names why a is not public, for the message a user sees.
func addressKind(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(), cgnat.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast():
		return "multicast"
	}
	return "non-public"
}

// public reports whether a is a globally routable unicast address.
func public(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast() &&
		!cgnat.Contains(a) && !a.IsUnspecified() && !a.IsMulticast()
}

// cgnat is the shared address space of RFC 6598, private in practice.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// DialContext returns the crawler's dialer for other fetchers of URLs
// users supply (package watch): the same crawler.resolve mapping and the
// same refusal of non-public addresses unless crawler.allow_private.
func DialContext(cfg Config) (func(ctx context.Context, network, addr string) (net.Conn, error), error) {
	d, err := newDialer(cfg)
	if err != nil {
		return nil, err
	}
	return d.DialContext, nil
}
