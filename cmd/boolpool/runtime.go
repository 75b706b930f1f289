package main

import (
	"context"
	"flag"

	"boolpool/encoders"
	"boolpool/server/app"
)

// runtimeFlags registers the encoder runtime's flags (--device, --threads)
// on fs; the returned config is filled when fs is parsed. deviceHelp is the
// --device usage text. The runtime itself is opened by app.OpenRuntime.
func runtimeFlags(fs *flag.FlagSet, deviceHelp string) *encoders.Config {
	var cfg encoders.Config
	fs.StringVar(&cfg.Device, "device", encoders.DeviceCPU, deviceHelp)
	fs.IntVar(&cfg.IntraOpThreads, "threads", 0, "ONNX Runtime intra-op threads (0: all CPUs)")
	return &cfg
}

// openEncoder opens the encoder runtime of cfg and the dense encoder name
// in it; closeAll closes both.
func openEncoder(ctx context.Context, cfg encoders.Config, name string) (enc *encoders.ONNXEncoder, closeAll func(), err error) {
	rt, err := app.OpenRuntime(cfg)
	if err != nil {
		return nil, nil, err
	}
	enc, err = rt.Open(ctx, name)
	if err != nil {
		rt.Close()
		return nil, nil, err
	}
	return enc, func() { enc.Close(); rt.Close() }, nil
}
