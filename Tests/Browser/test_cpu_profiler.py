"""The CPU Profiler's `cpu-profile` export (Xcode 26's default CPU instrument) in the browser: the
CPU pane and the CPU lane say that their weights are cycles, not time; a Time Profiler trace says time."""

import re

import pytest
from playwright.sync_api import expect

SLOW = 'landmarks-scroll-slow'


def clock(ns):
    s, ms, us = ns // 1_000_000_000, (ns // 1_000_000) % 1000, (ns // 1000) % 1000
    return f'{s // 60:02d}:{s % 60:02d}.{ms:03d}.{us:03d}'


def cpu_profile_export():
    """An export in the shape `xctrace export` writes for the CPU Profiler, of an app called Kiln:
    a weight column of engineering type cycle-weight, <tagged-backtrace> holding a <backtrace>."""
    schema = ('<schema name="cpu-profile"><col><mnemonic>time</mnemonic><name>Sample Time</name><engineering-type>sample-time</engineering-type></col>'
              '<col><mnemonic>thread</mnemonic><name>Thread</name><engineering-type>thread</engineering-type></col>'
              '<col><mnemonic>process</mnemonic><name>Process</name><engineering-type>process</engineering-type></col>'
              '<col><mnemonic>core</mnemonic><name>Core</name><engineering-type>core</engineering-type></col>'
              '<col><mnemonic>thread-state</mnemonic><name>State</name><engineering-type>thread-state</engineering-type></col>'
              '<col><mnemonic>weight</mnemonic><name>Cycles</name><engineering-type>cycle-weight</engineering-type></col>'
              '<col><mnemonic>stack</mnemonic><name>Backtrace</name><engineering-type>tagged-backtrace</engineering-type></col></schema>')
    app_binary = ('<binary id="20" name="Kiln" UUID="11111111-2222-4333-8444-555555555555" arch="arm64" load-addr="0x100000000" '
                  'path="/private/var/containers/Bundle/Application/AAAA/Kiln.app/Kiln"/>')
    stacks = [
        f'<tagged-backtrace id="30" fmt="GlazeGrid.body.getter"><backtrace id="31"><frame id="32" name="GlazeGrid.body.getter" addr="0x100004a11">{app_binary}</frame>'
        '<frame id="33" name="main" addr="0x100001001"><binary ref="20"/></frame></backtrace><uint64 id="34" fmt="0">0</uint64></tagged-backtrace>',
        '<tagged-backtrace id="40" fmt="KilnSchedule.sort()"><backtrace id="41"><frame id="42" name="KilnSchedule.sort()" addr="0x100006b21"><binary ref="20"/></frame>'
        '<frame ref="33"/></backtrace><uint64 ref="34"/></tagged-backtrace>',
    ]
    rows = []
    t = 100_000_000
    for i in range(240):
        t += 280_000
        if i == 0:
            head = ('<thread id="2" fmt="Main Thread (0x9100) (Kiln, pid: 5150)"><tid id="3" fmt="0x9100">37120</tid>'
                    '<process id="4" fmt="Kiln (5150)"><pid id="5" fmt="5150">5150</pid><device-session id="6" fmt="TODO">TODO</device-session></process></thread>'
                    '<process ref="4"/><core id="7" fmt="CPU 2 (P Core)">2</core><thread-state id="8" fmt="Running">Running</thread-state>')
        else:
            head = '<thread ref="2"/><process ref="4"/><core ref="7"/><thread-state ref="8"/>'
        cycles = 1_000_000 + (i % 7) * 13
        if i < 2:
            stack = stacks[i]  # each stack written once with its ids, referred to afterwards
        else:
            stack = '<tagged-backtrace ref="40"/>' if i % 3 == 0 else '<tagged-backtrace ref="30"/>'
        rows.append(f'<row><sample-time id="{1000 + i}" fmt="{clock(t)}">{t}</sample-time>{head}'
                    f'<cycle-weight id="{2000 + i}" fmt="1.00 M">{cycles}</cycle-weight>{stack}</row>')
    return ('<?xml version="1.0"?>\n<trace-query-result>\n'
            f"<node xpath='//trace-toc[1]/run[1]/data[1]/table[21]'>{schema}\n" + '\n'.join(rows) + '\n</node></trace-query-result>\n')


@pytest.fixture
def cycles_trace_id(server_control, tmp_path):
    path = tmp_path / 'kiln-cpu-profiler.xml'
    path.write_text(cpu_profile_export())
    trace_id = server_control.upload(path)['id']
    yield trace_id
    status, _ = server_control.api(f'/api/traces/{trace_id}', 'DELETE')
    assert status == 204


def test_cpu_pane_and_lane_name_cycles_for_a_cpu_profiler_trace(page, server, server_control, cycles_trace_id, sample_id, shot):
    status, info = server_control.api(f'/api/traces/{cycles_trace_id}')
    assert status == 200 and info['cpuWeightUnit'] == 'cycles' and info['app'] == 'Kiln'
    page.goto(f'{server}/traces/{cycles_trace_id}?v=1&p=cpu')
    expect(page.locator('[data-testid=cpu-unit]')).to_have_text('Weights: CPU cycles (CPU Profiler), not time')
    expect(page.locator('.cpu-table thead th').first).to_have_text('Cycles')
    total = sum(1_000_000 + (i % 7) * 13 for i in range(240))
    expect(page.locator('[data-testid=cpu-total]')).to_have_text(f'240 samples · {total / 1e6:.0f} M cycles')
    # The heaviest path opens: the main thread, then its frames, weighed in cycles (not ms).
    selected = page.locator('.cpu-row.selected')
    expect(selected).to_be_visible()
    weights = page.locator('.cpu-row .cpu-ms').all_text_contents()
    assert weights and all(w.endswith(' cycles') for w in weights), weights
    assert not any(w.endswith(' ms') for w in weights), weights
    expect(page.locator('.cpu-row[data-name="GlazeGrid.body.getter"]')).to_be_visible()
    # The timeline's CPU lane header says the same.
    expect(page.get_by_text('CPU (cycles)', exact=True)).to_be_visible()
    shot(page, 'cpu-profiler-cycles')
    assert not page.errors

    # A Time Profiler trace says time, in ms.
    page.goto(f'{server}/traces/{sample_id(SLOW)}?v=1&p=cpu')
    expect(page.locator('[data-testid=cpu-unit]')).to_have_text('Weights: CPU time')
    expect(page.locator('.cpu-table thead th').first).to_have_text('Weight')
    expect(page.locator('[data-testid=cpu-total]')).to_have_text(re.compile(r' ms of CPU$'))
