/// Inputs that broke the server once (issues 11 and 24): kept as generators so the fuzz test seeds with
/// them and the API tests replay them.
public enum HostileTraces {
    /// A native trace with one sample on a stack `depth` frames deep.
    public static func deepNativeStack(depth: Int) -> String {
        let stacks = (["[null,0]"] + (0..<(depth - 1)).map { "[\($0),0]" }).joined(separator: ",")
        return """
        {"format":"tracesvc-trace","version":1,
        "metadata":{"app":"Deep","device":"d","osVersion":"1","refreshRate":60,"recordedAt":null,"start":0,"end":10000000,"importNotes":[]},
        "processes":[[1,"Deep"]],"threads":[[1,"Main Thread",0,true]],"updateGroups":[],"updates":[],"nodes":[],"edges":[],
        "frames":[["recurse","Deep",true]],"stacks":[\(stacks)],"samples":[[1000,0,1000000,\(depth - 1)]]}
        """
    }

    /// A time-profile export whose one backtrace repeats one `<frame ref>` `repeats` times.
    public static func deepXCTraceBacktrace(repeats: Int) -> String {
        let frames = String(repeating: "<frame ref=\"11\"/>", count: repeats - 1)
        return """
        <?xml version="1.0"?>
        <trace-query-result>
        <node xpath='//trace-toc[1]/run[1]/data[1]/table[13]'><schema name="time-profile"><col><mnemonic>time</mnemonic><name>Sample Time</name><engineering-type>sample-time</engineering-type></col><col><mnemonic>thread</mnemonic><name>Thread</name><engineering-type>thread</engineering-type></col><col><mnemonic>process</mnemonic><name>Process</name><engineering-type>process</engineering-type></col><col><mnemonic>weight</mnemonic><name>Weight</name><engineering-type>weight</engineering-type></col><col><mnemonic>stack</mnemonic><name>Backtrace</name><engineering-type>backtrace</engineering-type></col></schema>
        <row><sample-time id="1" fmt="00:01.000">1000000000</sample-time><thread id="2" fmt="Main Thread (0x1) (Deep, pid: 1)"><tid id="3" fmt="0x1">1</tid><process id="4" fmt="Deep (1)"><pid id="5" fmt="1">1</pid></process></thread><process ref="4"/><weight id="9" fmt="1.00 ms">1000000</weight><backtrace id="10"><frame id="11" name="recurse" addr="0x1"><binary id="12" name="Deep" UUID="3F2A9C1B-55E0-3D7B-A1C4-9B0E6D2F7A13" arch="arm64" load-addr="0x0" path="/Deep"/></frame>\(frames)</backtrace></row>
        </node></trace-query-result>
        """
    }

    // MARK: Issue 24: answers an input can make huge, loops an input can make quadratic

    /// One update caused by `stateNodes` @State nodes, each written from the leaf of one
    /// `depth`-frame stack (every backtrace is the whole chain): issue 24's graph bomb at
    /// 300 x 100,000 (1.0 MB) grew the update's graph past 6 GB.
    public static func backtraceBomb(stateNodes: Int, depth: Int) -> String {
        var text = header(app: "Bomb")
        text += #""updateGroups":[[0,1000000,"Tap",0]],"updates":[[1000,50000,"view-body","Bomb","BombView","BombView.body","View Body",0,0,0,"low"]],"nodes":["#
        for node in 0..<stateNodes { text += #"["state","@State value\#(node)","BombView",true,\#(node),500,null],"# }
        text += #"["view-body","BombView","",true,\#(stateNodes),1000,0]],"edges":["#
        text += (0..<stateNodes).map { "[\($0),\(stateNodes),\"update\",\"\",1000,0]" }.joined(separator: ",")
        text += #"],"frames":[["write","Bomb",true]],"stacks":"# + chain(depth)
        text += #","stateChanges":["# + (0..<stateNodes).map { "[500,\($0),\"w\",\(depth - 1),0]" }.joined(separator: ",") + "]}"
        return text
    }

    /// One update caused by `writtenNodes` @State nodes, each written once, and `otherWrites`
    /// writes of a State that is in no graph, before them or after them (`graphWritesLast`):
    /// finding each node's write by reading the writes from the first costs nodes x writes.
    public static func manyWrites(writtenNodes: Int, otherWrites: Int, graphWritesLast: Bool) -> String {
        var text = header(app: "Writes")
        text += #""updates":[[1000,50000,"view-body","Writes","WritesView","WritesView.body","View Body",0,0,null,"low"]],"nodes":["#
        for node in 0..<writtenNodes { text += #"["state","@State value\#(node)","WritesView",true,\#(node),500,null],"# }
        text += #"["view-body","WritesView","",true,\#(writtenNodes),1000,0],["state","@State elsewhere","OtherView",true,-1,0,null]],"edges":["#
        text += (0..<writtenNodes).map { "[\($0),\(writtenNodes),\"update\",\"\",1000,null]" }.joined(separator: ",")
        text += #"],"frames":[["write","Writes",true]],"stacks":[[null,0]],"stateChanges":["#
        let graphWrites = (0..<writtenNodes).map { "[500,\($0),\"w\",0,0]" }
        let otherRows = Array(repeating: "[400,\(writtenNodes + 1),\"o\",0,0]", count: otherWrites)
        text += (graphWritesLast ? otherRows + graphWrites : graphWrites + otherRows).joined(separator: ",") + "]}"
        return text
    }

    /// `stacks` stacks, each one frame deeper than the last (one frame, "recurse"), one sample
    /// on each: expanding every stack to its full depth is quadratic in the file's size.
    public static func stackChain(stacks: Int) -> String {
        header(app: "Chain") + #""frames":[["recurse","Chain",true]],"stacks":"# + chain(stacks)
            + #","samples":["# + (0..<stacks).map { "[\($0 * 1000),0,1000,\($0)]" }.joined(separator: ",") + "]}"
    }

    /// A view `A` whose body sample sits on a frame named `A<A<A<…` (`repeats` times, never
    /// closed): matching the view's body frame from every start position is quadratic.
    public static func genericBodyName(repeats: Int) -> String {
        let name = String(repeating: "A<", count: repeats)
        return header(app: "Generic")
            + #""updates":[[0,5000000,"view-body","Generic","A","A.body","View Body",0,0,null,"low"]],"#
            + #""frames":[["\#(name)","Generic",true],["A.body.getter","Generic",true]],"stacks":[[null,0],[0,1]],"#
            + #""samples":[[1000,0,1000000,0],[2000,0,1000000,1]]}"#
    }

    /// A hang over `stacks` samples of system frames, each stack one frame deeper than the last:
    /// attributing each sample by walking its stack to the root is quadratic.
    public static func systemChainInHang(stacks: Int) -> String {
        header(app: "Hang") + #""frames":[["__psynch_mutexwait","libsystem_kernel.dylib",false]],"stacks":"# + chain(stacks)
            + #","samples":["# + (0..<stacks).map { "[\($0 * 1000),0,1000,\($0)]" }.joined(separator: ",") + "]"
            + #","hangs":[[0,\#(stacks * 1000),"Hang","Severe hang",0]]}"#
    }

    /// `hangs` nested hangs, each starting one sample later and all ending together, over as many
    /// samples, each on a frame of its own: reading every hang over the samples inside it is
    /// quadratic, and every hang reads differently (its heaviest frame is its first sample's).
    public static func nestedHangs(hangs: Int) -> String {
        let frames = (0..<hangs).map { #"["work\#($0)","Hang",true]"# }.joined(separator: ",")
        let stacks = (0..<hangs).map { "[null,\($0)]" }.joined(separator: ",")
        // Each sample weighs more than the next, so each hang's heaviest frame is its first sample's.
        let samples = (0..<hangs).map { "[\($0 * 1000),0,\(2000 * hangs - $0),\($0)]" }.joined(separator: ",")
        let intervals = (0..<hangs).map { #"[\#($0 * 1000),\#((hangs - $0) * 1000),"Hang","Severe hang",0]"# }.joined(separator: ",")
        return header(app: "Hang") + #""frames":[\#(frames)],"stacks":[\#(stacks)],"samples":[\#(samples)],"hangs":[\#(intervals)]}"#
    }

    /// The file up to its first table: metadata, one process, one main thread.
    private static func header(app: String) -> String {
        #"""
        {"format":"tracesvc-trace","version":3,"metadata":{"app":"\#(app)","device":"d","osVersion":"1","refreshRate":60,"recordedAt":null,"start":0,"end":10000000000,"importNotes":[]},
        "processes":[[1,"\#(app)"]],"threads":[[1,"Main Thread",0,true]],
        """#
    }

    /// `[[null,0],[0,0],[1,0],…]`: `count` stacks of frame 0, each the child of the one before.
    private static func chain(_ count: Int) -> String {
        "[[null,0]" + (0..<max(0, count - 1)).map { ",[\($0),0]" }.joined() + "]"
    }
}
