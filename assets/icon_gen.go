//go:build ignore

// icon_gen draws the application icon, assets/icon.png: a rounded dark
// tile with a tool-call bar on top and five request bars fanning out of it,
// in the timeline's colours. Run it once with `go generate ./assets` and
// commit the result.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const (
	size = 512
	ss   = 4 // supersampling factor per axis
)

func main() {
	big := image.NewRGBA(image.Rect(0, 0, size*ss, size*ss))
	s := float64(ss)

	// Background tile with rounded corners.
	fillRoundRect(big, 16*s, 16*s, 496*s, 496*s, 96*s, color.RGBA{0x1f, 0x26, 0x38, 0xff})

	// The tool call: one long bar across the top.
	fillRoundRect(big, 72*s, 92*s, 440*s, 142*s, 25*s, color.RGBA{0x9a, 0xa8, 0xc4, 0xff})

	// The fan-out: five bars starting together under the call, each a
	// different request kind colour, with a thin connector from the call.
	colours := []color.RGBA{
		{0x4c, 0x9a, 0xff, 0xff}, // sampling blue
		{0x3d, 0xc9, 0x8c, 0xff}, // elicitation green
		{0xff, 0xb0, 0x3b, 0xff}, // roots amber
		{0xb7, 0x7c, 0xff, 0xff}, // violet
		{0xff, 0x6b, 0x81, 0xff}, // rose
	}
	ends := []float64{392, 344, 420, 300, 372}
	for i, c := range colours {
		y := 182 + float64(i)*56
		// connector from the call's left edge down to the bar
		fillRoundRect(big, 104*s, 142*s, 112*s, (y+20)*s, 4*s, color.RGBA{0x5d, 0x6a, 0x86, 0xff})
		fillRoundRect(big, 104*s, (y+16)*s, 136*s, (y+24)*s, 4*s, color.RGBA{0x5d, 0x6a, 0x86, 0xff})
		fillRoundRect(big, 136*s, y*s, ends[i]*s, (y+40)*s, 20*s, c)
	}

	out := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, b, a float64
			for dy := 0; dy < ss; dy++ {
				for dx := 0; dx < ss; dx++ {
					p := big.RGBAAt(x*ss+dx, y*ss+dy)
					r += float64(p.R)
					g += float64(p.G)
					b += float64(p.B)
					a += float64(p.A)
				}
			}
			n := float64(ss * ss)
			out.SetRGBA(x, y, color.RGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(a / n)})
		}
	}
	f, err := os.Create("icon.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, out); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// fillRoundRect paints an opaque rounded rectangle (premultiplied colours
// with alpha 255 only).
func fillRoundRect(img *image.RGBA, x0, y0, x1, y1, r float64, c color.RGBA) {
	r = math.Min(r, math.Min((x1-x0)/2, (y1-y0)/2))
	for y := int(y0); y < int(math.Ceil(y1)); y++ {
		for x := int(x0); x < int(math.Ceil(x1)); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			cx := math.Max(x0+r, math.Min(px, x1-r))
			cy := math.Max(y0+r, math.Min(py, y1-r))
			if (px-cx)*(px-cx)+(py-cy)*(py-cy) <= r*r {
				img.SetRGBA(x, y, c)
			}
		}
	}
}
