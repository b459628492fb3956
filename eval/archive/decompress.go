package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/zstd"
)

const (
	// maxBlobBytes bounds the decompressed blob stream. Offsets and
	// lengths are kept in 32 bits (see interval), so a larger one could
	// not be indexed; the two real archives' decompress to 31 MB and 72 MB.
	maxBlobBytes = math.MaxUint32

	// maxManifestBytes bounds the decompressed manifest: about 8 million
	// intervals at the real archives' 130 bytes a line, where they hold
	// 10,000 and 14,000 (1.3 MB and 1.9 MB).
	maxManifestBytes = 1 << 30

	// maxWindow bounds the zstd window the decoder accepts. The archives are
	// written with the standard 8 MiB window (no --long); anything far larger
	// is a damaged or foreign header, rejected before it costs memory.
	maxWindow = 128 << 20

	// maxPreallocRatio caps how far the frame header's content size is
	// trusted for preallocation: a header claiming more than this many times
	// the compressed size gets a smaller buffer that grows as real bytes
	// arrive, so a lying header cannot make Open allocate gigabytes. The real
	// archives compress about 20-26x.
	maxPreallocRatio = 256
)

// readZstd reads and fully decompresses the zstd file at path, refusing
// one that decompresses to more than limit bytes.
func readZstd(path string, limit uint64) ([]byte, error) {
	comp, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decompress(comp, limit)
}

// decompress decodes a zstd stream (one frame in practice) of at most
// limit bytes into a single buffer sized from the frame header when the
// header is plausible.
func decompress(comp []byte, limit uint64) ([]byte, error) {
	var h zstd.Header
	if err := h.Decode(comp); err != nil {
		return nil, corruptf("not a zstd stream: %w", err)
	}
	prealloc := 64 << 10
	if h.HasFCS {
		if h.FrameContentSize > limit {
			return nil, corruptf("frame content size %d exceeds the %d byte limit", h.FrameContentSize, limit)
		}
		prealloc = int(min(h.FrameContentSize, uint64(len(comp))*maxPreallocRatio))
	}
	dec, err := zstd.NewReader(bytes.NewReader(comp), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		return nil, fmt.Errorf("zstd reader: %w", err)
	}
	defer dec.Close()

	// One spare byte so that a buffer sized exactly from the header sees
	// io.EOF without growing (and copying) at the very end.
	buf := make([]byte, 0, prealloc+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := dec.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if uint64(len(buf)) > limit {
			return nil, corruptf("decompressed size exceeds the %d byte limit", limit)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, corruptf("zstd: %w", err)
		}
	}
	if h.HasFCS && !h.Skippable && uint64(len(buf)) < h.FrameContentSize {
		return nil, corruptf("zstd: decompressed %d bytes, frame header says %d", len(buf), h.FrameContentSize)
	}
	return buf, nil
}
