/* The HTML report: one self-contained file (inline CSS, JS and SVG; no
 * network resource). The JSON report with per-frame path cells is embedded
 * as data; the script draws the frame-time chart (hitches highlighted,
 * median and p99 lines), a flame graph of the caller-context tree for the
 * whole window or a chosen frame, and sortable tables (sites, hitches, and
 * the diff when one is given). */
#include "analysis_internal.h"

static const char css[] =
    "body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}"
    "h1{font-size:18px}h2{font-size:15px;margin-top:24px}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{cursor:pointer;background:#eee;position:sticky;top:0}td:first-child,th:first-child{text-align:left}"
    ".note{color:#555;max-width:1000px}.warn{color:#a00}svg{background:#fff;border:1px solid #ccc}"
    ".bad{color:#b00}.good{color:#070}button{margin-right:8px}";

static const char script[] =
    "const D=JSON.parse(document.getElementById('data').textContent);const R=D.report;\n"
    "function fmt(ns){if(ns==null)return'';const a=Math.abs(ns);if(a<1e3)return ns.toFixed(0)+' ns';"
    "if(a<1e6)return(ns/1e3).toFixed(2)+' us';if(a<1e9)return(ns/1e6).toFixed(2)+' ms';return(ns/1e9).toFixed(3)+' "
    "s';}\n"
    "function el(t,a,txt){const e=document.createElementNS('http://www.w3.org/2000/svg',t);for(const k in "
    "a)e.setAttribute(k,a[k]);"
    "if(txt!=null)e.textContent=txt;return e;}\n"
    "function esc(s){return String(s).replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c]));}\n"
    /* frame chart */
    "function chart(){const s=R.frames.series,svg=document.getElementById('frames');const "
    "W=1000,H=220;svg.setAttribute('viewBox','0 0 '+W+' '+H);"
    "if(!s.length){svg.appendChild(el('text',{x:10,y:20},'no frame marks'));return;}"
    "let mx=0;for(const f of s)mx=Math.max(mx,f[1]);mx*=1.1;const bw=W/s.length;"
    "s.forEach((f,i)=>{const h=f[1]/mx*(H-20);const r=el('rect',{x:i*bw,y:H-h,width:Math.max(bw-0.5,0.5),height:h,"
    "fill:f[4]?'#d33':(f[3]?'#4a7':'#bbb'),style:'cursor:pointer'});r.appendChild(el('title',{},'frame '+i+': "
    "'+fmt(f[1])+"
    "(f[4]?' (hitch)':'')+', unlogged '+fmt(f[2])));r.onclick=()=>flame(i);svg.appendChild(r);});"
    "for(const [v,c,l] of [[R.frames.median_ns,'#06c','median'],[R.frames.time.p99_ns,'#c60','p99']]){const "
    "y=H-v/mx*(H-20);"
    "svg.appendChild(el('line',{x1:0,x2:W,y1:y,y2:y,stroke:c,'stroke-dasharray':'4 3'}));"
    "svg.appendChild(el('text',{x:4,y:y-3,fill:c,'font-size':11},l+' '+fmt(v)));}"
    /* warnings and errors: a marker above their frame's bar */
    "for(const [i,wn,er] of R.messages.frames){if(i>=s.length)continue;const h=s[i][1]/mx*(H-20),x=i*bw+bw/2;"
    "const m=el('path',{d:'M'+(x-5)+' '+(H-h-12)+' l5 9 l5 -9 z',fill:er?'#a00':'#e90',class:'msgmark'});"
    "m.appendChild(el('title',{},'frame '+i+': '+(er?er+' error'+(er>1?'s':'')+(wn?', ':''):'')+(wn?wn+' "
    "warning'+(wn>1?'s':''):'')));svg.appendChild(m);}}\n"
    /* counters: one small chart per per-frame statistic, on the frame chart's x axis */
    "function cval(v,u){if(u&&Math.abs(v)>=1024){const k=Math.abs(v)>=1<<30?[1<<30,'GiB']:Math.abs(v)>=1<<20?"
    "[1<<20,'MiB']:[1024,'KiB'];return(v/k[0]).toFixed(2)+' '+k[1];}return "
    "Number.isInteger(v)?String(v):v.toFixed(2);}\n"
    "function counterCharts(){const box=document.getElementById('counters'),n=R.frames.series.length;"
    "const C=R.counters.filter(c=>c.frames&&c.frames.length);if(!C.length){box.textContent='No counters, gauges or "
    "memory domains in this capture.';return;}"
    "for(const c of C){const W=1000,H=70;const d=document.createElement('div');d.className='note';"
    "d.textContent=c.name+' '+c.series+' ('+c.kind+'): mean '+cval(c.mean,c.unit)+', p99 '+cval(c.p99,c.unit)+', max "
    "'+cval(c.max,c.unit)+' over '+c.values+' of '+c.frames_in_window+' window frames';box.appendChild(d);"
    "const svg=el('svg',{width:W,height:H,viewBox:'0 0 '+W+' '+H});box.appendChild(svg);"
    "let lo=Math.min(0,c.min),hi=c.max>lo?c.max:lo+1;const bw=W/Math.max(n,1);"
    "for(const [f,v] of c.frames){const h=(v-lo)/(hi-lo)*(H-6);const r=el('rect',{x:f*bw,y:H-h,"
    "width:Math.max(bw-0.5,0.5),height:Math.max(h,0.5),fill:'#58a'});r.appendChild(el('title',{},'frame '+f+': "
    "'+cval(v,c.unit)));svg.appendChild(r);}}}\n"
    /* flame graph */
    "function flame(frame){const P=R.paths,val=new Float64Array(P.length);"
    "const ann=new Array(P.length);"
    "if(frame==null){P.forEach((p,i)=>val[i]=p.exclusive.total_ns);}else{for(const c of "
    "R.cells)if(c[0]==frame){val[c[1]]+=c[3];if(c.length>4)ann[c[1]]=c[4];}}"
    "const kids=P.map(()=>[]),roots=[];P.forEach((p,i)=>{if(p.parent<0)roots.push(i);else kids[p.parent].push(i);});"
    /* iterative walks: a path tree of any depth draws (no recursion limit of the script engine) */
    "const inc=new Float64Array(P.length);const order=[],st=roots.slice().reverse();while(st.length){const "
    "i=st.pop();order.push(i);for(let k=kids[i].length-1;k>=0;k--)st.push(kids[i][k]);}"
    "for(let k=order.length-1;k>=0;k--){const i=order[k];inc[i]+=val[i];if(P[i].parent>=0)inc[P[i].parent]+=inc[i];}"
    "let tot=0;for(const r of roots)tot+=inc[r];const svg=document.getElementById('flame');svg.innerHTML='';"
    "const W=1000,RH=17;let md=0;P.forEach((p,i)=>{if(inc[i]>0)md=Math.max(md,p.depth);});const H=(md+2)*RH;"
    "svg.setAttribute('viewBox','0 0 '+W+' '+H);svg.setAttribute('height',H);"
    "document.getElementById('flametitle').textContent=(frame==null?'whole window':'frame '+frame)+': '+fmt(tot)+' "
    "over all threads"
    " (inclusive = exclusive of the subtree; time summed over threads can exceed wall time)'+(R.capture.folded?'; '+"
    "R.capture.folded+' scopes began deeper than '+R.paths_depth+' levels: folded onto the paths marked /.../, the "
    "levels between left out':'');"
    "svg.appendChild(el('rect',{x:0,y:0,width:W,height:RH-1,fill:'#888'}));svg.appendChild(el('text',{x:4,y:12,fill:'#"
    "fff','font-size':11},'all threads'));"
    "const todo=[[roots,0,0]];while(todo.length){const [l,x0,d]=todo.pop();let x=x0;for(const i of "
    "l.slice().sort((a,b)=>inc[b]-inc[a])){if(!tot||inc[i]<=0)continue;const w=inc[i]/tot*W;"
    "const h=(P[i].site*47)%60;const "
    "g=el('g',{});g.appendChild(el('rect',{x:x,y:(d+1)*RH,width:Math.max(w-0.5,0.3),height:RH-1,"
    "fill:'hsl('+(20+h)+',75%,'+(55+(d%3)*5)+'%)'}));g.appendChild(el('title',{},P[i].path+'\\ninclusive "
    "'+fmt(inc[i])+', exclusive '+fmt(val[i])+(ann[i]!=null?'\\nslowest annotated call: '+ann[i]:'')));"
    "if(w>40)g.appendChild(el('text',{x:x+3,y:(d+1)*RH+12,'font-size':11},(P[i].folded?'... ':'')+"
    "R.sites[P[i].site].name.slice(0,Math.floor(w/7))));"
    "svg.appendChild(g);todo.push([kids[i],x,d+1]);x+=w;}}}\n"
    /* sortable tables */
    "function table(id,cols,rows){const t=document.getElementById(id);let key=null,dir=-1;"
    "function render(){const r=rows.slice();if(key!=null)r.sort((a,b)=>{const x=cols[key].v(a),y=cols[key].v(b);"
    "return(typeof x=='string'?x.localeCompare(y):x-y)*dir;});"
    "t.innerHTML='<tr>'+cols.map((c,i)=>'<th data-i='+i+'>'+c.h+(key==i?(dir<0?' \\u25bc':' "
    "\\u25b2'):'')+'</th>').join('')+'</tr>'+"
    "r.map(x=>'<tr>'+cols.map(c=>'<td'+(c.cls?' "
    "class=\"'+c.cls(x)+'\"':'')+'>'+esc(c.f?c.f(c.v(x),x):c.v(x))+'</td>').join('')+'</tr>').join('');"
    "t.querySelectorAll('th').forEach(th=>th.onclick=()=>{const "
    "i=+th.dataset.i;if(key==i)dir=-dir;else{key=i;dir=-1;}render();});}"
    "render();}\n"
    "const S=(k,f)=>({h:k,v:f,f:fmt});\n"
    "table('sites',[{h:'site',v:s=>s.name},{h:'calls',v:s=>s.calls},{h:'calls/"
    "frame',v:s=>s.calls_per_frame,f:x=>x.toFixed(2)},"
    "S('excl total',s=>s.exclusive.total_ns),S('excl mean',s=>s.exclusive.mean_ns),S('excl p50',s=>s.exclusive.p50_ns),"
    "S('excl p90',s=>s.exclusive.p90_ns),S('excl p99',s=>s.exclusive.p99_ns),S('excl max',s=>s.exclusive.max_ns),"
    "S('incl total',s=>s.inclusive.total_ns),S('incl p50',s=>s.inclusive.p50_ns),S('incl p99',s=>s.inclusive.p99_ns),"
    "{h:'incomplete',v:s=>s.incomplete},{h:'unwound',v:s=>s.unwound},{h:'recursive',v:s=>s.recursive},"
    "{h:'threads',v:s=>s.threads},{h:'lossy',v:s=>s.lossy?'yes':''},"
    "{h:'excl unknown',v:s=>s.excl_unknown}],R.sites.filter(s=>s.calls>0||s.incomplete>0||s.unwound>0));\n"
    "table('messages',[{h:'level',v:m=>m.level},{h:'frame',v:m=>m.frame},S('at',m=>m.ts_ns),{h:'thread',v:m=>m.thread},"
    "{h:'text',v:m=>m.text}],R.messages.first);\n"
    "table('async',[{h:'track',v:z=>z.track},{h:'zone',v:z=>z.name},{h:'zones',v:z=>z.zones},{h:'open',v:z=>z."
    "incomplete},"
    "S('p50',z=>z.duration.p50_ns),S('p90',z=>z.duration.p90_ns),S('max',z=>z.duration.max_ns),"
    "{h:'frames spanned',v:z=>z.frames_spanned_mean,f:x=>x.toFixed(1)},{h:'ended on another "
    "thread',v:z=>z.cross_thread},"
    "{h:'threads busy',v:z=>z.thread_busy_share,f:x=>(100*x).toFixed(0)+'%'}],R.async);\n"
    "table('hitches',[{h:'frame',v:h=>h.frame},S('frame time',h=>h.frame_ns),{h:'x "
    "median',v:h=>h.ratio,f:x=>x.toFixed(2)},"
    "{h:'grew most (vs its median frame)',v:h=>h.grew.map(g=>g.name+' +'+fmt(g.delta_excl_ns)).join(', "
    "')},{h:'explains',v:h=>h.explained,f:x=>(100*x).toFixed(0)+'%'}],R.hitches);\n"
    "if(D.diff){document.getElementById('diffsec').style.display='';const rows=D.diff.entries.filter(e=>e.flags);"
    "const pc=x=>x>=1e9?'new':(x*100).toFixed(1)+'%';"
    "const iv=s=>e0(s[0])+' ['+(s[1]<=-1?'?':e0(s[1]))+', "
    "'+(s[2]>=1e9?'?':e0(s[2]))+']',e0=x=>(x>=0?'+':'')+(x*100).toFixed(1)+'%';"
    "table('diff',[{h:'site or "
    "path',v:e=>e.name},{h:'kind',v:e=>e.kind},{h:'verdict',v:e=>e.verdict,cls:e=>/slower|more/"
    ".test(e.verdict)?'bad':'good'},"
    "{h:'calls/frame base',v:e=>e.calls_per_frame[0],f:x=>x.toFixed(2)},{h:'calls/frame "
    "new',v:e=>e.calls_per_frame[1],f:x=>x.toFixed(2)},"
    "{h:'calls',v:e=>e.rel.calls,f:pc},S('excl p50 base',e=>e.base_excl.p50_ns),S('excl p50 new',e=>e.new_excl.p50_ns),"
    "{h:'excl shift [interval]',v:e=>e.shift[0],f:(x,e)=>iv(e.shift)},{h:'incl shift [interval]',v:e=>e.incl_shift[0],"
    "f:(x,e)=>iv(e.incl_shift)},{h:'p50',v:e=>e.rel.p50,f:pc},{h:'mean',v:e=>e.rel.mean,f:pc},"
    "{h:'calls/s',v:e=>e.rel_calls_per_s,f:pc},{h:'work rests on',v:e=>e.work_basis},"
    "{h:'p work',v:e=>e.p_work,f:x=>x.toPrecision(2)},{h:'p time',v:e=>e.p_time,f:x=>x.toPrecision(2)}],rows);"
    "const U=D.diff.runs;document.getElementById('diffnote').textContent=D.diff.method+'. Slower/faster work when the "
    "whole interval lies beyond '+(D.diff.min_shift*100)+'%; more/less work at p < "
    "'+D.diff.alpha_per_test.toPrecision(2)+"
    "' and a change of at least '+(D.diff.min_change*100)+'%. Runs: '+U.base+' BASE, '+U.new+' NEW: '+(U.noise_known?"
    "'they disagreed by '+(U.sd_median*100).toFixed(2)+'% (largest '+(U.sd_max*100).toFixed(2)+'%). ':"
    "'run-to-run noise is unknown, '+(U.assumed_sd*100)+'% assumed. ')+(rows.length?'':'No significant change.');"
    "const cr=D.diff.counters.filter(c=>c.flags);table('diffcounters',[{h:'counter',v:c=>c.name+' '+c.series},"
    "{h:'kind',v:c=>c.kind},{h:'verdict',v:c=>c.verdict,cls:c=>/more|higher/.test(c.verdict)?'bad':'good'},"
    "{h:'mean base',v:c=>c.mean[0],f:x=>cval(x,'')},{h:'mean new',v:c=>c.mean[1],f:x=>cval(x,'')},"
    "{h:'change',v:c=>c.rel,f:pc},{h:'p',v:c=>c.p,f:x=>x.toPrecision(2)}],cr);}\n"
    /* GPU: each queue's frame times as bars by frame number, the CPU's frame times as a line on the same
       axis (the application's frame numbers: they match the CPU's frame index when it numbers frames
       from its first mark), and the passes */
    "function gpuChart(){if(!D.gpu)return;const svg=document.getElementById('gpuframes'),W=1000,H=160;"
    "svg.setAttribute('viewBox','0 0 '+W+' '+H);const cpu=R.frames.series;let n=cpu.length,mx=0;"
    "for(const t of D.gpu.tracks)for(const [f,v] of t.frames){n=Math.max(n,f+1);mx=Math.max(mx,v);}"
    "for(const f of cpu)mx=Math.max(mx,f[1]);mx*=1.1;const bw=W/Math.max(n,1),nt=D.gpu.tracks.length;"
    "D.gpu.tracks.forEach((t,k)=>{for(const [f,v] of t.frames){const h=v/mx*(H-20);const r=el('rect',{x:f*bw+k*bw/nt,"
    "y:H-h,width:Math.max(bw/nt-0.5,0.5),height:h,fill:['#7a4','#a7c','#c84'][k%3],class:'gpubar'});"
    "r.appendChild(el('title',{},t.track+', frame '+f+': '+fmt(v)));svg.appendChild(r);}});"
    "if(cpu.length)svg.appendChild(el('polyline',{points:cpu.map((f,i)=>(i*bw+bw/2)+','+(H-f[1]/mx*(H-20))).join(' '),"
    "fill:'none',stroke:'#06c','stroke-width':1.5}));"
    "document.getElementById('gpunote').textContent='Bars: GPU frame time per queue ('+D.gpu.tracks.map(t=>t.track+"
    "': p50 '+fmt(t.frame_time.p50_ns)+', p95 '+fmt(t.frame_time.p95_ns)+(t.calibrated?'':', uncalibrated')).join('; "
    "')+"
    "'); blue line: CPU frame time (p50 '+fmt(R.frames.time?R.frames.time.p50_ns:0)+'). Device time, by frame number.';"
    "table('gpupasses',[{h:'queue',v:p=>p.track},{h:'pass',v:p=>p.pass},{h:'count',v:p=>p.duration.count},"
    "{h:'calls/frame',v:p=>p.calls_per_frame,f:x=>x.toFixed(2)},S('mean',p=>p.duration.mean_ns),"
    "S('p50',p=>p.duration.p50_ns),S('p95',p=>p.duration.p95_ns),S('max',p=>p.duration.max_ns),"
    "S('total',p=>p.duration.total_ns)],D.gpu.passes);}\n"
    "chart();counterCharts();gpuChart();flame(null);\n";

int ludus__report_html(const ludus_analysis *a, const ludus_diff *d, ludus__writer *w, const ludus_report_options *o) {
    const ludus_analysis_summary *s = &a->sum;
    char b1[32], b2[32], b3[32], b4[32];
    ludus__w_str(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Ludus report</title><style>");
    ludus__w_str(w, css);
    ludus__w_str(w, "</style></head><body>\n<h1>Ludus report: <span id=\"title\"></span></h1>\n<p class=\"note\">");
    ludus__w_fmt(w, "Capture %s, clock %s, %u threads, %llu events. Window <b>",
                 ludus__dur(b1, 32, (double)s->duration_ns), s->clock_name, s->threads, (unsigned long long)s->events);
    ludus__w_html_str(w, s->window, strlen(s->window));
    ludus__w_fmt(w, "</b>: %llu complete frames on thread &ldquo;<span id=\"ft\"></span>&rdquo;. ",
                 (unsigned long long)s->frames_in_window);
    if (s->frames_in_window)
        ludus__w_fmt(w, "Frame time p50 %s, p90 %s, p99 %s, max %s; %u hitches (frame &gt; %.2f &times; median). ",
                     ludus__dur(b1, 32, (double)s->frame_time.p50_ns), ludus__dur(b2, 32, (double)s->frame_time.p90_ns),
                     ludus__dur(b3, 32, (double)s->frame_time.p99_ns), ludus__dur(b4, 32, (double)s->frame_time.max_ns),
                     s->hitches, s->hitch_k);
    ludus__w_fmt(
        w,
        "</p>\n<p class=\"%s\">Loss: %llu dropped events, %llu incomplete slices (closed at capture end; counted, "
        "never used as durations), %llu orphan ends, %llu filtered.</p>\n",
        s->dropped || s->incomplete ? "warn" : "note", (unsigned long long)s->dropped,
        (unsigned long long)s->incomplete, (unsigned long long)s->orphan_ends, (unsigned long long)s->filtered);
    ludus__w_fmt(w,
                 "<p class=\"note\">Times are elapsed wall-clock time, not CPU time. Inclusive = entry to exit "
                 "(per site: outermost activations only); exclusive = inclusive minus the union of child scopes "
                 "on the same track (thread or span lane). Time summed over threads can exceed frame time. "
                 "Percentiles: %s.</p>\n",
                 s->exact ? "exact (every duration kept)"
                          : "nearest rank from a log-linear histogram, relative error &le; 0.78%");
    ludus__w_str(
        w, "<h2>Frame time</h2><p class=\"note\">Green: frames in the window; red: hitches; grey: outside the "
           "window. Click a frame for its flame graph.</p><svg id=\"frames\" width=\"1000\" height=\"220\"></svg>\n"
           "<h2>Counters per frame</h2><p class=\"note\">Each value is the snapshot the frame's closing mark recorded "
           "(counters: the frame's sum; gauges: last, min, max; memory domains: live, peak and churn).</p>"
           "<div id=\"counters\"></div>\n");
    if (o->gpu)
        ludus__w_str(w, "<h2>GPU frame time</h2><p class=\"note\" id=\"gpunote\"></p>"
                        "<svg id=\"gpuframes\" width=\"1000\" height=\"160\"></svg>"
                        "<h3>GPU passes (device time)</h3><table id=\"gpupasses\"></table>\n");
    ludus__report_locks_html(a, d, w);
    ludus_message_stats m;
    ludus_analysis_messages(a, &m);
    ludus__w_fmt(w,
                 "<h2>Messages</h2><p class=\"note\">%llu errors, %llu warnings, %llu info, %llu debug; marked on the "
                 "frame chart (orange: warnings, dark red: errors). The first warnings and errors:</p>"
                 "<table id=\"messages\"></table>\n"
                 "<h2>Async zones</h2><p class=\"note\">Their own tree, per track and zone; threads busy: the time "
                 "the threads that began and ended each zone spent in top-level scopes while it was open.</p>"
                 "<table id=\"async\"></table>\n",
                 (unsigned long long)m.count[3], (unsigned long long)m.count[2], (unsigned long long)m.count[1],
                 (unsigned long long)m.count[0]);
    ludus__w_str(
        w, "<h2>Flame graph (caller-context paths)</h2><p><button onclick=\"flame(null)\">whole window</button>"
           "<span id=\"flametitle\"></span></p><svg id=\"flame\" width=\"1000\"></svg>\n"
           "<div id=\"diffsec\" style=\"display:none\"><h2>Diff against BASE</h2><p class=\"note\" id=\"diffnote\"></p>"
           "<table id=\"diff\"></table><h3>Counters per frame</h3><table id=\"diffcounters\"></table></div>\n"
           "<h2>Hitches</h2><table id=\"hitches\"></table>\n"
           "<h2>Sites</h2><p class=\"note\">Click a column to sort.</p><table id=\"sites\"></table>\n"
           "<script type=\"application/json\" id=\"data\">{\"title\":");
    ludus__w_jstr(w, o->title);
    ludus__w_str(w, ",\"report\":");
    int rc = ludus__report_json(a, w, 1);
    if (rc) return rc;
    if (d) {
        ludus__w_str(w, ",\"diff\":");
        ludus__diff_json(d, w);
    }
    if (o->gpu) {
        ludus__w_str(w, ",\"gpu\":");
        ludus__gpu_stats_json(o->gpu, w);
    }
    ludus__w_str(w, "}</script>\n<script>\n");
    ludus__w_str(w, script);
    ludus__w_str(w, "document.getElementById('title').textContent=D.title;"
                    "document.getElementById('ft').textContent=R.frames.thread;\n</script>\n</body></html>\n");
    return 0;
}
