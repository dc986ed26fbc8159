import Hummingbird
import TraceModel

/// The views of one trace and of several, one controller per area: timeline, summary and updates,
/// tasks, rows (signposts, hang risks), findings, search, the cause graph, the CPU, compare. Each
/// is given the model facet (`TraceModels`, the `ModelCache`) and runs every query through
/// `queries` (off the cooperative pool, a bounded number at once, shared fairly between clients,
/// stopped when its client leaves); compare also reads the noise of earlier recordings.
struct QueryRoutes: RouteController {
    let models: any TraceModels
    let noise: any EarlierRecordings
    let queries: WorkGate

    func add(to router: some RouterMethods<TraceRequestContext>) {
        let controllers: [any RouteController] = [
            TimelineRoutes(models: models, queries: queries),
            SummaryRoutes(models: models, queries: queries),
            TaskRoutes(models: models, queries: queries),
            RowRoutes(models: models, queries: queries),
            FindingsRoutes(models: models, queries: queries),
            SearchRoutes(models: models, queries: queries),
            GraphRoutes(models: models, queries: queries),
            CPURoutes(models: models, queries: queries),
            CompareRoutes(models: models, noise: noise, queries: queries),
        ]
        for controller in controllers { controller.add(to: router) }
    }
}
