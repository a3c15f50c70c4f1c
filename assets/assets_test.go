package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconIsA512PNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(Icon.Content()))
	if err != nil {
		t.Fatalf("the icon is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Fatalf("icon is %dx%d, want 512x512", b.Dx(), b.Dy())
	}
	if Icon.Name() != "icon.png" {
		t.Errorf("icon name %q", Icon.Name())
	}
}
