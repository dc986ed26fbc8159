"""Several runs in one xctrace export: the trace page offers the runs it did not read ("Run 2 of
3"); picking one uploads the same file again with ?run=N while the page has it, and asks for the
file again (naming `tracesvc inspect --run N`) once it does not."""
import re

from playwright.sync_api import expect

HANG_SCHEMA = ('<schema name="potential-hangs"><col><mnemonic>start</mnemonic><name>Start</name><engineering-type>start-time</engineering-type></col>'
               '<col><mnemonic>duration</mnemonic><name>Duration</name><engineering-type>duration</engineering-type></col>'
               '<col><mnemonic>hang-type</mnemonic><name>Hang Type</name><engineering-type>hang-type</engineering-type></col>'
               '<col><mnemonic>thread</mnemonic><name>Thread</name><engineering-type>thread</engineering-type></col></schema>')


def run_node(run, pid, hangs, app="Quarry"):
    """One run's potential-hangs table, in the shape `xctrace export --xpath '/trace-toc/run/data/table[@schema=…]'` writes."""
    rows = []
    for index, (start, duration, kind) in enumerate(hangs):
        thread = (f'<thread id="4" fmt="Main Thread (0x5100) ({app}, pid: {pid})"><tid id="5" fmt="0x5100">20736</tid>'
                  f'<process id="6" fmt="{app} ({pid})"><pid id="7" fmt="{pid}">{pid}</pid></process></thread>') if index == 0 else '<thread ref="4"/>'
        i = 10 * (index + 1)
        rows.append(f'<row><start-time id="{i}" fmt="">{start}</start-time><duration id="{i + 1}" fmt="">{duration}</duration>'
                    f'<hang-type id="{i + 2}" fmt="{kind}">{kind}</hang-type>{thread}</row>')
    return f"<node xpath='//trace-toc[1]/run[{run}]/data[1]/table[4]'>{HANG_SCHEMA}\n" + "\n".join(rows) + "\n</node>\n"


def three_run_export(path):
    path.write_text('<?xml version="1.0"?>\n<trace-query-result>\n'
                    + run_node(1, 901, [(1_000_000_000, 300_000_000, "Hang")])
                    + run_node(2, 902, [(500_000_000, 150_000_000, "Microhang"), (2_000_000_000, 900_000_000, "Hang")])
                    + run_node(3, 903, [(100_000_000, 260_000_000, "Microhang"), (900_000_000, 400_000_000, "Hang"),
                                        (3_000_000_000, 500_000_000, "Hang")])
                    + "</trace-query-result>\n")
    return path


def trace_id_of(page):
    page.wait_for_url(re.compile(r"/traces/[0-9a-f]+"), timeout=60_000)
    return page.url.split("/traces/")[1].split("/")[0].split("?")[0]


def hang_count(server_control, trace_id):
    status, info = server_control.api(f"/api/traces/{trace_id}")
    assert status == 200, info
    return info["counts"]["hangs"], info["run"], info["runs"]


def test_picking_another_run_reads_it_from_the_same_file(page, server, server_control, sample_id, timeline, tmp_path, shot):
    export = three_run_export(tmp_path / "quarry-runs.xml")
    page.goto(server)
    page.get_by_role("table", name="Traces").wait_for()
    page.set_input_files("#upload-input", str(export))
    first = trace_id_of(page)
    assert hang_count(server_control, first) == (1, 1, [1, 2, 3])
    picker = page.get_by_role("group", name="Runs of this export")
    expect(picker).to_contain_text("This export holds 3 runs (separate recordings); run 1 is shown")
    assert picker.get_by_role("button").all_inner_texts() == ["Run 2 of 3", "Run 3 of 3"]
    timeline.wait_idle(page)
    shot(page, "runs-01-picker")

    # The page still has the file: choosing run 2 sends it again with ?run=2, a trace of its own.
    picker.get_by_role("button", name="Run 2 of 3").click()
    page.wait_for_function("(first) => !location.pathname.includes(first)", arg=first, timeout=60_000)
    second = trace_id_of(page)
    assert second != first, "run 2 is another trace: its id covers the run"
    assert hang_count(server_control, second) == (2, 2, [1, 2, 3]), "run 2 alone, never added to run 1"
    timeline.wait_idle(page)
    assert timeline.lane(page, "hangs")["marks"] >= 1
    expect(picker).to_contain_text("run 2 is shown")
    assert picker.get_by_role("button").all_inner_texts() == ["Run 1 of 3", "Run 3 of 3"]

    # Back to run 1: the trace uploaded first, not a third copy.
    picker.get_by_role("button", name="Run 1 of 3").click()
    page.wait_for_function("(second) => !location.pathname.includes(second)", arg=second, timeout=60_000)
    assert trace_id_of(page) == first

    # A fresh load no longer has the file: the picker asks for it, and names the command line.
    page.reload()
    timeline.wait_idle(page)
    picker.get_by_role("button", name="Run 3 of 3").click()
    status = page.locator("#run-status")
    expect(status).to_contain_text("This page no longer has the file")
    expect(status.locator("code")).to_have_text("tracesvc inspect --run 3 <export file>")
    expect(page.get_by_role("button", name="Choose quarry-runs again…")).to_be_focused()
    shot(page, "runs-02-file-needed")
    page.set_input_files("#run-file", str(export))
    page.wait_for_function("(first) => !location.pathname.includes(first)", arg=first, timeout=60_000)
    third = trace_id_of(page)
    assert third not in (first, second)
    assert hang_count(server_control, third) == (3, 3, [1, 2, 3])
    assert not page.errors


def test_a_trace_of_one_run_has_no_run_picker(page, sample_id, timeline):
    timeline.open(page, sample_id("landmarks-scroll-slow"))
    assert page.locator("#run-picker").count() == 0
