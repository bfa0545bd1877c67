module github.com/sift-go/sift/asm

go 1.24.0

replace github.com/sift-go/sift => ../

require github.com/mmcloughlin/avo v0.5.0 // indirect
