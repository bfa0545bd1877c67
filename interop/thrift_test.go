package interop

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/sift-go/sift/sbbf"
)

// apacheThriftHeader decodes a BloomFilterHeader with Apache Thrift's own
// compact protocol, skipping unknown fields with its Skip: numBytes, the
// header's length, and whether the header holds the four fields with each
// union holding exactly member 1.
func apacheThriftHeader(data []byte) (numBytes int32, hlen int, spec bool, err error) {
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	buf.Write(data)
	p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	if _, err = p.ReadStructBegin(ctx); err != nil {
		return 0, 0, false, err
	}
	seen := map[int16]bool{}
	spec = true
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return 0, 0, false, err
		}
		if typ == thrift.STOP {
			break
		}
		switch {
		case id == 1 && typ == thrift.I32:
			if numBytes, err = p.ReadI32(ctx); err != nil {
				return 0, 0, false, err
			}
			seen[1] = true
		case id >= 2 && id <= 4 && typ == thrift.STRUCT:
			seen[id] = true
			if _, err := p.ReadStructBegin(ctx); err != nil {
				return 0, 0, false, err
			}
			members := 0
			for {
				_, t2, id2, err := p.ReadFieldBegin(ctx)
				if err != nil {
					return 0, 0, false, err
				}
				if t2 == thrift.STOP {
					break
				}
				members++
				spec = spec && id2 == 1 && t2 == thrift.STRUCT
				if err := p.Skip(ctx, t2); err != nil {
					return 0, 0, false, err
				}
			}
			if err := p.ReadStructEnd(ctx); err != nil {
				return 0, 0, false, err
			}
			spec = spec && members == 1
		default:
			if err := p.Skip(ctx, typ); err != nil {
				return 0, 0, false, err
			}
		}
	}
	return numBytes, len(data) - buf.Len(), spec && len(seen) == 4, nil
}

// TestThriftUUIDFields: a BloomFilterHeader written by Apache Thrift's own
// compact protocol (the library arrow-go's generated code runs on) with
// unknown fields of Thrift's UUID type (compact type 13, 16 bytes, Thrift
// 0.17 and later): a UUID, a list, a set and a map of UUIDs, and a UUID
// inside the algorithm's member struct. sift skips them as Apache Thrift
// does and reads the same numBytes and header length; a header cut inside
// a UUID is ErrTruncated.
func TestThriftUUIDFields(t *testing.T) {
	const numBytes = 64
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	u := thrift.Tuuid{0x0c, 0x0c, 0x0c, 0x0c, 0x15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x1c, 0x00, 0xff, 0x0d, 0x0d, 0x00}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	union := func(id int16, uuidInside bool) {
		must(p.WriteFieldBegin(ctx, "", thrift.STRUCT, id))
		must(p.WriteStructBegin(ctx, ""))
		must(p.WriteFieldBegin(ctx, "", thrift.STRUCT, 1))
		must(p.WriteStructBegin(ctx, ""))
		if uuidInside {
			must(p.WriteFieldBegin(ctx, "", thrift.UUID, 7))
			must(p.WriteUUID(ctx, u))
		}
		must(p.WriteFieldStop(ctx))
		must(p.WriteStructEnd(ctx))
		must(p.WriteFieldEnd(ctx))
		must(p.WriteFieldStop(ctx))
		must(p.WriteStructEnd(ctx))
		must(p.WriteFieldEnd(ctx))
	}
	must(p.WriteStructBegin(ctx, "BloomFilterHeader"))
	must(p.WriteFieldBegin(ctx, "", thrift.UUID, 5))
	must(p.WriteUUID(ctx, u))
	must(p.WriteFieldBegin(ctx, "numBytes", thrift.I32, 1))
	must(p.WriteI32(ctx, numBytes))
	must(p.WriteFieldBegin(ctx, "", thrift.LIST, 6))
	must(p.WriteListBegin(ctx, thrift.UUID, 20)) // the long list form
	for range 20 {
		must(p.WriteUUID(ctx, u))
	}
	must(p.WriteFieldBegin(ctx, "", thrift.SET, 8))
	must(p.WriteSetBegin(ctx, thrift.UUID, 2))
	must(p.WriteUUID(ctx, u))
	must(p.WriteUUID(ctx, u))
	must(p.WriteFieldBegin(ctx, "", thrift.MAP, 9))
	must(p.WriteMapBegin(ctx, thrift.UUID, thrift.UUID, 1))
	must(p.WriteUUID(ctx, u))
	must(p.WriteUUID(ctx, u))
	union(2, true)
	union(3, false)
	union(4, false)
	must(p.WriteFieldStop(ctx))
	must(p.WriteStructEnd(ctx))
	must(p.Flush(ctx))
	hdr := bytes.Clone(buf.Bytes())
	data := append(bytes.Clone(hdr), make([]byte, numBytes)...)

	nb, hl, spec, err := apacheThriftHeader(data)
	if err != nil || !spec || nb != numBytes || hl != len(hdr) {
		t.Fatalf("Apache Thrift reads numBytes %d, header %d of %d bytes, spec %v, %v", nb, hl, len(hdr), spec, err)
	}
	if snb, shl, err := sbbf.DecodeParquetHeader(data); err != nil || snb != numBytes || shl != len(hdr) {
		t.Errorf("sift: numBytes %d, header %d of %d bytes, %v", snb, shl, len(hdr), err)
	}
	if f, n, err := sbbf.ParseParquet(data); err != nil || n != len(data) || f.NumBytes() != numBytes {
		t.Errorf("ParseParquet: %d of %d bytes, %v", n, len(data), err)
	}
	for i := range len(hdr) {
		if _, _, err := sbbf.DecodeParquetHeader(data[:i]); !errors.Is(err, sbbf.ErrTruncated) {
			t.Fatalf("header cut at %d of %d bytes: %v", i, len(hdr), err)
		}
	}
}
