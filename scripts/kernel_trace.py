"""The device work a contender's captured CUDA graph does, as the GPU ran it back to back: torch.profiler's CUDA
activity trace (CUPTI) of a few replays, summed per kernel (and memset or copy) name, with the time a call
spans from its first kernel's start to its last one's end and the part of it no kernel ran (the gaps).

compare_torch.py --kernels prints it for every contender after the rounds, so that a difference in time can be
put on the kernel it comes from, or on the gaps between kernels, under the timing method's own conditions
(warm L2, the clocks the rounds left), where ncu times each kernel alone.
"""

TRACED_REPLAYS = 3


def kernel_summary(events, calls):
    """`events`: (name, start_us, end_us) of the device activities of `calls` calls -> {"kernels": [{"name",
    "launches" a call, "us" a call (their durations summed)}] in the order each name first ran, "busy_us" (every
    activity's duration summed, a call), "span_us" (the first start to the last end, a call), "gap_us" (span
    less busy: no activity running; overlapping activities make it smaller)}. No events: None."""
    if not events:
        return None
    totals = {}
    for name, start, end in sorted(events, key=lambda e: e[1]):
        launches, us = totals.get(name, (0, 0.0))
        totals[name] = (launches + 1, us + (end - start))
    busy = sum(end - start for _, start, end in events) / calls
    span = (max(end for _, _, end in events) - min(start for _, start, _ in events)) / calls
    return {"kernels": [{"name": name, "launches": launches / calls, "us": us / calls}
                        for name, (launches, us) in totals.items()],
            "busy_us": busy, "span_us": span, "gap_us": span - busy}


def device_events(torch, profiler):
    """(name, start_us, end_us) of every device-side activity a finished torch.profiler.profile recorded."""
    cuda = torch.autograd.DeviceType.CUDA
    return [(event.name, event.time_range.start, event.time_range.end) for event in profiler.events()
            if event.device_type == cuda]


def traced(torch, run, calls):
    """kernel_summary of `calls` calls that run() makes, traced by torch.profiler (CUDA activities only)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        run()
        torch.cuda.synchronize()
    return kernel_summary(device_events(torch, profiler), calls)


def graph_kernels(torch, graph, call, calls_per_replay):
    """The kernels of TRACED_REPLAYS replays of `graph` (calls_per_replay calls each), with "traced": "graph";
    where the trace holds no kernel of a graph (a CUPTI that records graph launches whole), the same number of
    calls of `call` made one by one, with "traced": "calls"."""
    calls = TRACED_REPLAYS * calls_per_replay

    def replays():
        for _ in range(TRACED_REPLAYS):
            graph.replay()

    def one_by_one():
        for _ in range(calls):
            call()
    summary = traced(torch, replays, calls)
    if summary:
        return dict(summary, traced="graph")
    summary = traced(torch, one_by_one, calls)
    return dict(summary, traced="calls") if summary else {"error": "the trace holds no device activity"}


def short_name(name, width=72):
    """A kernel's name cut to `width` characters: a C++ signature from its argument list on, then the rest."""
    name = name.split("(")[0] if "(" in name else name
    return name if len(name) <= width else name[:width - 3] + "..."


def format_kernels(label, summary):
    """Lines of one contender's summary under `label`: span, busy and gaps a call, then each kernel."""
    if not summary or "error" in summary:
        return [f"{label}: {summary['error'] if summary else 'not traced'}"]
    if summary["gap_us"] >= 0:
        gaps = f"{summary['busy_us']:.1f} us of it in kernels, {summary['gap_us']:.1f} us between them"
    else:  # kernels that ran at once: a programmatic dependent's blocks waiting while the kernel ahead ends
        gaps = (f"{summary['busy_us']:.1f} us in kernels, {-summary['gap_us']:.1f} us more than the span: "
                f"kernels overlap (a programmatic dependent starts before the one ahead ends)")
    lines = [f"{label}: {summary['span_us']:.1f} us a call from the first kernel's start to the last one's end, "
             f"{gaps} (traced: {summary['traced']})"]
    for kernel in summary["kernels"]:
        lines.append(f"    {kernel['us']:9.1f} us  x{kernel['launches']:g}  {short_name(kernel['name'])}")
    return lines
