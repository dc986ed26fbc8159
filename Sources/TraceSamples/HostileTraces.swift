/// Inputs that broke the server once (issue 11): kept as generators so the fuzz test seeds with
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
}
