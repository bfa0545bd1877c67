//go:build purego

package main

const puregoEnabled = true
