import Hummingbird
import TraceModel

/// The views of one trace, one controller per area: timeline, summary and updates, tasks,
/// signposts, findings (the CPU's are in CPURoutes). Every query runs through `queries` (off the cooperative
/// pool, a bounded number at once, shared fairly between clients, stopped when its client leaves).
func addQueryRoutes(to router: some RouterMethods<TraceRequestContext>, store: any TraceModels, queries: WorkGate) {
    TimelineRoutes(store: store, queries: queries).add(to: router)
    SummaryRoutes(store: store, queries: queries).add(to: router)
    TaskRoutes(store: store, queries: queries).add(to: router)
    SignpostRoutes(store: store, queries: queries).add(to: router)
    HangRiskRoutes(store: store, queries: queries).add(to: router)
    FindingsRoutes(store: store, queries: queries).add(to: router)
}
