package main

import (
	"flag"

	"boolpool/encoders"
)

// runtimeFlags registers the encoder runtime's flags (--device, --threads)
// on fs; the returned config is filled when fs is parsed. deviceHelp is the
// --device usage text.
func runtimeFlags(fs *flag.FlagSet, deviceHelp string) *encoders.Config {
	var cfg encoders.Config
	fs.StringVar(&cfg.Device, "device", encoders.DeviceCPU, deviceHelp)
	fs.IntVar(&cfg.IntraOpThreads, "threads", 0, "ONNX Runtime intra-op threads (0: all CPUs)")
	return &cfg
}

// openRuntime opens the encoders' ONNX Runtime: the one place in
// cmd/boolpool that does (encode, embed, retrieve, model prepare, and the
// serve command's jobs). The caller closes it.
func openRuntime(cfg encoders.Config) (*encoders.Runtime, error) {
	return encoders.NewRuntime(cfg)
}
