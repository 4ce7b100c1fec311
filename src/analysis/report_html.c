/* The HTML report: one self-contained file (inline CSS, JS and SVG; no
 * network resource). The JSON report with per-frame path cells is embedded
 * as data; the script draws the frame-time chart (a y axis, clamped at a
 * robust top with the longer frames marked, median, p99 and hitch lines
 * labelled apart, zoom and pan over any number of frames, an overview, every
 * frame selectable), beside it the flame graph of the chosen frame (or the
 * whole window), the counter charts grouped by kind and collapsible on the
 * chart's x axis, and sortable tables (hitches worst first, sites, and the
 * diff when one is given). */
#include "analysis_internal.h"

static const char css[] =
    "body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}"
    "h1{font-size:18px}h2{font-size:15px;margin:20px 0 6px}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}"
    "th{cursor:pointer;background:#eee;position:sticky;top:0}td:first-child,th:first-child{text-align:left}"
    ".note{color:#555;max-width:1100px}.warn{color:#a00}svg{background:#fff;border:1px solid #ccc;display:block}"
    ".bad{color:#b00}.good{color:#070}button{margin-right:6px}"
    ".pair{display:grid;grid-template-columns:minmax(0,1.3fr) minmax(0,1fr);gap:18px;align-items:start}"
    ".side{position:sticky;top:0}.scroll{max-height:320px;overflow:auto}td.wrap{text-align:left;white-space:normal}"
    "@media (max-width:1100px){.pair{grid-template-columns:minmax(0,1fr)}}"
    "#frames,#overview,svg.counter{width:100%;height:auto}#frames{cursor:crosshair}#frames:focus{outline:1px solid "
    "#05c}"
    "#overview{margin-top:4px;cursor:pointer}.flamebox{max-height:85vh;overflow:auto;border:1px solid #ccc}"
    ".flamebox svg{width:100%;border:0}"
    "tr.pick{cursor:pointer}tr.pick:hover{background:#eef}details{margin:6px 0}summary{cursor:pointer;font-weight:600}"
    ".trigger{background:#fff4d6;border:1px solid #e0c060;padding:4px 8px;max-width:1100px}";

static const char script[] =
    "const D=JSON.parse(document.getElementById('data').textContent);const R=D.report;\n"
    "const $=id=>document.getElementById(id);\n"
    "function fmt(ns){if(ns==null)return'';const a=Math.abs(ns);if(a<1e3)return ns.toFixed(0)+' "
    "ns';if(a<1e6)return(ns/1e3).toFixed(2)+' us';if(a<1e9)return(ns/1e6).toFixed(2)+' ms';return(ns/1e9).toFixed(3)+' "
    "s';}\n"
    "function el(t,a,txt){const e=document.createElementNS('http://www.w3.org/2000/svg',t);for(const k in "
    "a)e.setAttribute(k,a[k]);if(txt!=null)e.textContent=txt;return e;}\n"
    "function esc(s){return String(s).replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&quot;'}[c]));}\n"
    "/* ticks at 1, 2, 5 x 10^k over [0, hi] */\n"
    "function ticks(hi,n){if(!(hi>0))return[0];const s0=hi/n,m=Math.pow(10,Math.floor(Math.log10(s0))),f=s0/m;const "
    "st=(f<1.5?1:f<3.5?2:f<7.5?5:10)*m;const o=[];for(let v=0;v<=hi*(1+1e-9);v+=st)o.push(v);return o;}\n"
    "function tickText(ns,step){if(step<1e3)return ns.toFixed(0)+' ns';if(step<1e6)return +(ns/1e3).toFixed(3)+' "
    "us';if(step<1e9)return +(ns/1e6).toFixed(3)+' ms';return +(ns/1e9).toFixed(3)+' s';}\n"
    "/* labels on one axis that must not collide: each wanted at y, kept >= gap apart, in order */\n"
    "function spread(ys,gap,lo,hi){const o=ys.map((y,i)=>({y,i})).sort((a,b)=>a.y-b.y);for(let "
    "k=1;k<o.length;k++)if(o[k].y-o[k-1].y<gap)o[k].y=o[k-1].y+gap;const "
    "over=o.length?o[o.length-1].y-hi:0;if(over>0)for(const x of o)x.y-=over;for(let "
    "k=0;k<o.length;k++)if(o[k].y<lo)o[k].y=lo;const r=[];for(const x of o)r[x.i]=x.y;return r;}\n"
    "/* ---- the frame chart: zoom (wheel, buttons, the overview), pan (drag), every frame selectable ---- */\n"
    "/* index 0 of the series is the lead-in (the time before the first mark): never drawn, never a frame; the "
    "chart spans frames F0 (1) to NF - 1 */\n"
    "/* a long capture's series is decimated (step): each bucket of step frames sent as its shortest and longest "
    "(their index the 7th value); every frame of a bucket shows its longest, so spikes survive */\n"
    "const FS=(F=>{if(!F.step)return F.series;const X=new Array(F.count),S=F.series;for(let "
    "k=0;k<S.length;){const b=S[k][6]-S[k][6]%F.step;let m=S[k],j=k;while(j<S.length&&S[j][6]-S[j][6]%F.step===b){if("
    "S[j][1]>m[1])m=S[j];j++;}for(let f=b;f<Math.min(b+F.step,F.count);f++)X[f]=m;for(;k<j;k++)X[S[k][6]]=S[k];}return "
    "X;})(R.frames),NF=FS.length,F0=Math.min(1,NF);\n"
    "const FC={W:760,H:270,L:62,RM:112,T:14,B:34,i0:F0,i1:NF,sel:null,clamp:true,drag:null};\n"
    "const TRIG=R.capture.trigger||null;\n"
    "const MSG=new Map();for(const [i,wn,er] of R.messages.frames)if(i<NF)MSG.set(i,[wn,er]);\n"
    "function frameColor(f){return f[4]?'#d33':(f[3]?'#4a7':'#bbb');}\n"
    "/* the frame thread's CPU time in a frame (-1: not recorded): the rest of its wall time it waited or was "
    "preempted */\n"
    "function cpuText(f){return f.length>5&&f[5]>=0?', frame thread CPU '+fmt(f[5])+' ('+(f[1]?(100*f[5]/"
    "f[1]).toFixed(0):0)+'% of it)':'';}\n"
    "/* its unlogged remainder (-1: not kept, a frame outside a window other than all) */\n"
    "function unloggedText(f){return f[2]>=0?', unlogged '+fmt(f[2]):'';}\n"
    "/* the top of the y axis over frames [i0, i1): clamped, the larger of their p99 and the hitch threshold, plus "
    "15%, but at most 8 x their median (or 1.5 x the threshold): a normal frame stays at least an eighth of the chart "
    "high, whatever a few long frames do; never above the longest; unclamped, the longest */\n"
    "function yTop(i0,i1){const v=[];for(let i=i0;i<i1;i++)if(FS[i][3])v.push(FS[i][1]);if(!v.length)for(let "
    "i=i0;i<i1;i++)v.push(FS[i][1]);if(!v.length)return 1;v.sort((a,b)=>a-b);const "
    "mx=v[v.length-1]||1;if(!FC.clamp)return mx*1.06;const "
    "q=k=>v[Math.min(v.length-1,Math.max(0,Math.ceil(k*v.length)-1))];const th=R.frames.hitch_threshold_ns||0;const "
    "top=Math.min(Math.max(q(0.99),th)*1.15,Math.max(8*q(0.5),1.5*th));return Math.min(top,mx*1.06)||1;}\n"
    "function pw(){return FC.W-FC.L-FC.RM;}\n"
    "function xOf(i){return FC.L+(i-FC.i0)/(FC.i1-FC.i0)*pw();}\n"
    "/* the frame under x: the longest of the frames a pixel covers when they are narrower than one */\n"
    "function frameAt(x){const span=FC.i1-FC.i0,f=FC.i0+(x-FC.L)/pw()*span;if(span/pw()<=1)return "
    "Math.max(F0,Math.min(NF-1,Math.floor(f)));const "
    "a=Math.max(F0,Math.floor(FC.i0+(Math.floor(x-FC.L))*span/"
    "pw())),b=Math.min(NF,Math.max(a+1,Math.floor(FC.i0+(Math.floor(x-FC.L)+1)*span/pw())));let m=a;for(let "
    "i=a;i<b;i++)if(FS[i][1]>FS[m][1])m=i;return m;}\n"
    "function svgX(svg,ev){const r=svg.getBoundingClientRect();return(ev.clientX-r.left)/r.width*FC.W;}\n"
    "function setView(i0,i1){const "
    "span=Math.max(Math.min(i1-i0,NF-F0),Math.min(NF-F0,8));if(i0<F0)i0=F0;if(i0+span>NF)i0=NF-span;FC.i0=i0;FC."
    "i1=i0+span;"
    "redraw();}\n"
    "function zoom(k,at){const c=at==null?(FC.i0+FC.i1)/2:at;setView(c-(c-FC.i0)*k,c+(FC.i1-c)*k);}\n"
    "function drawFrames(){const svg=$('frames');svg.textContent='';const "
    "{W,H,L,T,B}=FC,P=pw(),PH=H-T-B;svg.setAttribute('viewBox','0 0 '+W+' '+H);\n"
    "if(NF<=F0+0){svg.appendChild(el('text',{x:10,y:20},NF?'no complete frame (only the lead-in)':'no frame "
    "marks'));return;}\n"
    "const "
    "i0=Math.max(F0,Math.floor(FC.i0)),i1=Math.min(NF,Math.ceil(FC.i1)),top=yTop(i0,i1),y=v=>T+PH-Math.min(v,top)/"
    "top*PH;\n"
    "/* y axis: ticks, grid, unit */\n"
    "const tk=ticks(top,5),st=tk.length>1?tk[1]-tk[0]:top;for(const v of tk){const "
    "yy=y(v);svg.appendChild(el('line',{x1:L,x2:L+P,y1:yy,y2:yy,stroke:'#eee'}));svg.appendChild(el('text',{x:L-6,y:yy+"
    "4,'text-anchor':'end','font-size':11,fill:'#555',class:'ytick'},tickText(v,st)));}\n"
    "svg.appendChild(el('line',{x1:L,x2:L,y1:T,y2:T+PH,stroke:'#888'}));svg.appendChild(el('line',{x1:L,x2:L+P,y1:T+PH,"
    "y2:T+PH,stroke:'#888'}));\n"
    "/* x axis: frame numbers */\n"
    "const span=FC.i1-FC.i0,xt=ticks(span,8),xs=xt.length>1?xt[1]-xt[0]:1;for(let "
    "v=Math.ceil(FC.i0/xs)*xs;v<=FC.i1;v+=xs){const "
    "xx=xOf(v);if(xx<L||xx>L+P)continue;svg.appendChild(el('line',{x1:xx,x2:xx,y1:T+PH,y2:T+PH+4,stroke:'#888'}));svg."
    "appendChild(el('text',{x:xx,y:T+PH+16,'text-anchor':'middle','font-size':11,fill:'#555'},String(Math.round(v))));}"
    "\n"
    "svg.appendChild(el('text',{x:L+P/"
    "2,y:H-3,'text-anchor':'middle','font-size':11,fill:'#555'},'frame'+(FC.clamp&&top<maxOf(i0,i1)?'   (axis clamped: "
    "longer frames reach the top, marked \\u25b2)':'')));\n"
    "/* bars: one per frame, or when frames are narrower than a pixel one per pixel holding the longest of its frames "
    "(data-n: how many it stands for) */\n"
    "const per=span/P,over=[];\n"
    "const bar=(f,x,w,n)=>{const d=FS[f][1],h=Math.max(Math.min(d,top)/top*PH,0.5),cut=d>top;const "
    "r=el('rect',{x:x,y:T+PH-h,width:w,height:h,fill:cut?'#800':frameColor(FS[f]),class:'bar'+(cut?' "
    "over':'')+(f===FC.sel?' sel':''),'data-f':f,'data-n':n});r.appendChild(el('title',{},(n>1?n+' frames, the longest "
    "':'')+'frame '+f+': '+fmt(d)+(FS[f][4]?' (hitch)':'')+unloggedText(FS[f])+"
    "cpuText(FS[f])));svg.appendChild(r);if(cut)over.push([f,x+w/2]);};\n"
    "if(per<=1){const w=Math.max(P/span-(P/span>3?1:0),0.5);for(let i=i0;i<i1;i++)bar(i,xOf(i),w,1);}\n"
    "else for(let c=0;c<P;c++){const "
    "a=Math.max(i0,Math.floor(FC.i0+c*per)),b=Math.min(i1,Math.floor(FC.i0+(c+1)*per));if(b<=a)continue;let "
    "m=a;for(let i=a;i<b;i++)if(FS[i][1]>FS[m][1])m=i;bar(m,L+c,1,b-a);}\n"
    "/* frames past the clamped top: a break mark, and the longest of them labelled */\n"
    "over.sort((p,q)=>FS[q[0]][1]-FS[p[0]][1]);let lab=[];for(const [f,x] of "
    "over){svg.appendChild(el('path',{d:'M'+(x-4)+' '+(T+7)+' l4 -6 l4 6 "
    "z',fill:'#000',class:'overmark'}));if(lab.length<4&&lab.every(p=>Math.abs(p-x)>60)){lab.push(x);svg.appendChild("
    "el('text',{x:Math.min(Math.max(x,L+24),L+P-24),y:T-3,'text-anchor':'middle','font-size':10,fill:'#000'},fmt(FS[f]["
    "1])));}}\n"
    "/* median, p99, hitch threshold: dashed lines, labels in the right margin kept apart */\n"
    "/* (a line above the clamped top: its label at the top, with an arrow) */\n"
    "const "
    "lines=[[R.frames.median_ns,'#06c','median'],[R.frames.time.p99_ns,'#c60','p99'],[R.frames.hitch_threshold_ns,'#"
    "a0a','hitch >']].filter(l=>l[0]>0);\n"
    "const ly=spread(lines.map(l=>y(l[0])),13,T+6,T+PH);lines.forEach((l,k)=>{const "
    "yy=y(l[0]),up=l[0]>top;if(!up)svg.appendChild(el('line',{x1:L,x2:L+P,y1:yy,y2:yy,stroke:l[1],'stroke-dasharray':'"
    "4 3'}));svg.appendChild(el('text',{x:L+P+4,y:ly[k]+4,fill:l[1],'font-size':10,class:'linelabel'},(up?'\\u25b2 "
    "':'')+l[2]+' '+fmt(l[0])));});\n"
    "/* warnings and errors above their frames */\n"
    "for(const [i,[wn,er]] of MSG){if(i<i0||i>=i1)continue;const x=xOf(i+0.5),yy=y(FS[i][1]);const "
    "m=el('path',{d:'M'+(x-5)+' '+(yy-12)+' l5 9 l5 -9 "
    "z',fill:er?'#a00':'#e90',class:'msgmark'});m.appendChild(el('title',{},'frame '+i+': '+(er?er+' "
    "error'+(er>1?'s':'')+(wn?', ':''):'')+(wn?wn+' warning'+(wn>1?'s':''):'')));svg.appendChild(m);}\n"
    "/* the trigger a rolling window's file was written for */\n"
    "if(TRIG&&TRIG.frame>=i0&&TRIG.frame<i1){const "
    "x=xOf(TRIG.frame+1);svg.appendChild(el('line',{x1:x,x2:x,y1:T,y2:T+PH,stroke:'#000','stroke-dasharray':'2 "
    "2',class:'trigger'}));svg.appendChild(el('text',{x:x+3,y:T+10,'font-size':10},'trigger: '+TRIG.reason));}\n"
    "if(FC.sel!=null&&FC.sel>=i0&&FC.sel<i1){const "
    "x=xOf(FC.sel),w=Math.max(xOf(FC.sel+1)-x,1);svg.appendChild(el('rect',{x:x-1,y:T,width:w+2,height:PH,fill:'none',"
    "stroke:'#000','stroke-width':1.5,class:'selmark'}));}\n"
    "drawOverview();}\n"
    "function maxOf(i0,i1){let m=0;for(let i=i0;i<i1;i++)m=Math.max(m,FS[i][1]);return m;}\n"
    "/* the overview: every frame (the longest per pixel), the view as a box */\n"
    "function drawOverview(){const svg=$('overview');svg.textContent='';const "
    "{W,L}=FC,P=pw(),H=40;svg.setAttribute('viewBox','0 0 '+W+' '+H);if(NF<=F0)return;const top=yTop(F0,NF);const "
    "per=(NF-F0)/P;\n"
    "for(let c=0;c<P;c++){const a=F0+Math.floor(c*per),b=Math.max(a+1,F0+Math.floor((c+1)*per));let m=a;for(let "
    "i=a;i<b&&i<NF;i++)if(FS[i][1]>FS[m][1])m=i;if(m>=NF)break;const "
    "h=Math.max(Math.min(FS[m][1],top)/"
    "top*(H-4),0.5);svg.appendChild(el('rect',{x:L+c,y:H-h,width:1,height:h,fill:frameColor(FS[m])}));if(per<1)c+=Math."
    "max(0,Math.floor(1/per)-1);}\n"
    "svg.appendChild(el('rect',{x:L+(FC.i0-F0)/(NF-F0)*P,y:0,width:Math.max((FC.i1-FC.i0)/"
    "(NF-F0)*P,2),height:H,fill:'rgba(0,90,200,0.12)',stroke:'#05c',class:'viewbox'}));}\n"
    "function selectFrame(f,scroll){if(f==null||f<F0||f>=NF)return;FC.sel=f;if(f<FC.i0||f>=FC.i1){const "
    "s=FC.i1-FC.i0;setView(f-s/2,f+s/2);}else redraw();flame(f);const x=FS[f];$('framecap').textContent='frame '+f+': "
    "'+fmt(x[1])+(x[4]?' (hitch)':'')+unloggedText(x)+cpuText(x)+', begins at '+fmt(x[0])+(x[3]?'':' (outside "
    "the "
    "window)');if(scroll)$('framesec').scrollIntoView({block:'nearest'});}\n"
    "function frameChart(){const svg=$('frames'),ov=$('overview');\n"
    "svg.addEventListener('wheel',ev=>{ev.preventDefault();const "
    "x=svgX(svg,ev),at=FC.i0+(x-FC.L)/pw()*(FC.i1-FC.i0);zoom(ev.deltaY<0?0.8:1.25,at);},{passive:false});\n"
    "svg.addEventListener('mousedown',ev=>{FC.drag={x:svgX(svg,ev),i0:FC.i0,moved:false};});\n"
    "window.addEventListener('mousemove',ev=>{if(!FC.drag)return;const "
    "x=svgX(svg,ev),d=(x-FC.drag.x)/"
    "pw()*(FC.i1-FC.i0);if(Math.abs(x-FC.drag.x)>3)FC.drag.moved=true;if(FC.drag.moved)setView(FC.drag.i0-d,FC.drag.i0-"
    "d+(FC.i1-FC.i0));});\n"
    "window.addEventListener('mouseup',ev=>{const d=FC.drag;FC.drag=null;if(d&&!d.moved){const "
    "x=svgX(svg,ev);if(x>=FC.L&&x<=FC.L+pw())selectFrame(frameAt(x));}});\n"
    "svg.addEventListener('dblclick',()=>setView(F0,NF));\n"
    "svg.addEventListener('keydown',ev=>{const "
    "k=ev.key;if(k==='ArrowLeft'||k==='ArrowRight'){ev.preventDefault();selectFrame(Math.max(F0,Math.min(NF-1,(FC.sel=="
    "null?Math.floor(FC.i0):FC.sel)+(k==='ArrowLeft'?-1:1))));}else if(k==='+'||k==='=')zoom(0.5,FC.sel);else "
    "if(k==='-')zoom(2,FC.sel);else if(k==='Home')setView(F0,NF);});\n"
    "ov.addEventListener('mousedown',ev=>{const go=e=>{const "
    "x=svgX(ov,e),c=F0+(x-FC.L)/pw()*(NF-F0),s=FC.i1-FC.i0;setView(c-s/2,c+s/2);};go(ev);const "
    "mv=e=>go(e),up=()=>{window.removeEventListener('mousemove',mv);window.removeEventListener('mouseup',up);};window."
    "addEventListener('mousemove',mv);window.addEventListener('mouseup',up);});\n"
    "$('zin').addEventListener('click',()=>zoom(0.5,FC.sel));$('zout').addEventListener('click',()=>zoom(2,FC.sel));$('"
    "zall').addEventListener('click',()=>setView(F0,NF));\n"
    "$('clamp').addEventListener('change',e=>{FC.clamp=e.target.checked;redraw();});\n"
    "const hs=R.hitches.slice().sort((a,b)=>b.frame_ns-a.frame_ns);let "
    "hk=-1;$('worst').addEventListener('click',()=>{if(!hs.length)return;hk=(hk+1)%hs.length;const "
    "f=hs[hk].frame;setView(f-30,f+30);selectFrame(f);});\n"
    "drawFrames();}\n"
    "/* ---- counters: grouped by kind, each group collapsible, on the frame chart's x axis (its zoom) ---- */\n"
    "function cval(v,u){if(u&&Math.abs(v)>=1024){const "
    "k=Math.abs(v)>=1<<30?[1<<30,'GiB']:Math.abs(v)>=1<<20?[1<<20,'MiB']:[1024,'KiB'];return(v/k[0]).toFixed(2)+' "
    "'+k[1];}return Number.isInteger(v)?String(v):v.toFixed(2);}\n"
    "const CC=[];\n"
    "function counterCharts(){const box=$('counters');const "
    "C=R.counters.filter(c=>c.frames&&c.frames.length);if(!C.length){box.textContent='No counters, gauges or memory "
    "domains in this capture.';return;}\n"
    "const groups=[['count','Counters (per frame: the frame\\u2019s sum)'],['gauge','Gauges (last, min, max of each "
    "frame)'],['memory','Memory domains (live, peak, churn)']];\n"
    "for(const [kind,title] of groups.concat([[null,'Other']])){const "
    "G=C.filter(c=>kind?c.kind===kind:!groups.some(g=>g[0]===c.kind));if(!G.length)continue;\n"
    "const det=document.createElement('details');if(G.length<=8)det.open=true;const "
    "sm=document.createElement('summary');sm.textContent=title+': '+G.length+' "
    "chart'+(G.length>1?'s':'');det.appendChild(sm);box.appendChild(det);\n"
    "for(const c of G){const d=document.createElement('div');d.className='note';d.textContent=c.name+' '+c.series+': "
    "mean '+cval(c.mean,c.unit)+', p99 '+cval(c.p99,c.unit)+', max '+cval(c.max,c.unit)+' over '+c.values+' of "
    "'+c.frames_in_window+' window frames';det.appendChild(d);\n"
    "const svg=el('svg',{viewBox:'0 0 '+FC.W+' 64',class:'counter'});det.appendChild(svg);const by=new "
    "Map(c.frames.map(([f,v])=>[f,v]));CC.push({c,svg,by});}}\n"
    "drawCounters();}\n"
    "function drawCounters(){const P=pw(),span=FC.i1-FC.i0,per=span/P,H=64;const "
    "i0=Math.max(F0,Math.floor(FC.i0)),i1=Math.min(NF,Math.ceil(FC.i1));\n"
    "for(const {c,svg,by} of CC){svg.textContent='';const lo=Math.min(0,c.min),hi=c.max>lo?c.max:lo+1;const "
    "hgt=v=>Math.max((v-lo)/(hi-lo)*(H-8),0.5);\n"
    "svg.appendChild(el('text',{x:FC.L-6,y:12,'text-anchor':'end','font-size':10,fill:'#555'},cval(hi,c.unit)));svg."
    "appendChild(el('text',{x:FC.L-6,y:H,'text-anchor':'end','font-size':10,fill:'#555'},cval(lo,c.unit)));\n"
    "const put=(f,v,x,w,n)=>{const h=hgt(v);const "
    "r=el('rect',{x:x,y:H-h,width:w,height:h,fill:f===FC.sel?'#000':'#58a',class:'bar','data-n':n});r.appendChild(el('"
    "title',{},(n>1?n+' frames, the largest: ':'')+'frame '+f+': '+cval(v,c.unit)));svg.appendChild(r);};\n"
    "if(per<=1){const w=Math.max(P/span-(P/span>3?1:0),0.5);for(const [f,v] of "
    "by)if(f>=i0&&f<i1)put(f,v,xOf(f),w,1);}\n"
    "else{const col=new Map();for(const [f,v] of by){if(f<i0||f>=i1)continue;const k=Math.floor((f-FC.i0)/per);const "
    "o=col.get(k);if(!o)col.set(k,[f,v,1]);else{o[2]++;if(v>o[1]){o[0]=f;o[1]=v;}}}for(const [k,[f,v,n]] of "
    "col)put(f,v,FC.L+k,1,n);}}}\n"
    "function redraw(){drawFrames();drawCounters();}\n"
    "/* ---- flame graph of the chosen frame (or the whole window) ---- */\n"
    "function flame(frame){const P=R.paths,val=new Float64Array(P.length);const ann=new Array(P.length);\n"
    "if(frame==null){P.forEach((p,i)=>val[i]=p.exclusive.total_ns);}else{for(const c of "
    "R.cells)if(c[0]==frame){val[c[1]]+=c[3];if(c.length>4)ann[c[1]]=c[4];}}\n"
    "const kids=P.map(()=>[]),roots=[];P.forEach((p,i)=>{if(p.parent<0)roots.push(i);else kids[p.parent].push(i);});\n"
    "/* iterative walks: a path tree of any depth draws (no recursion limit of the script engine) */\n"
    "const inc=new Float64Array(P.length);const order=[],st=roots.slice().reverse();while(st.length){const "
    "i=st.pop();order.push(i);for(let k=kids[i].length-1;k>=0;k--)st.push(kids[i][k]);}\n"
    "for(let k=order.length-1;k>=0;k--){const i=order[k];inc[i]+=val[i];if(P[i].parent>=0)inc[P[i].parent]+=inc[i];}\n"
    "let tot=0;for(const r of roots)tot+=inc[r];const svg=$('flame');svg.textContent='';\n"
    "const W=600,RH=17;let md=0;P.forEach((p,i)=>{if(inc[i]>0)md=Math.max(md,p.depth);});const "
    "H=(md+2)*RH;svg.setAttribute('viewBox','0 0 '+W+' '+H);svg.setAttribute('height',H);\n"
    "$('flametitle').textContent=(frame==null?'whole window':'frame '+frame)+': '+fmt(tot)+' over all threads "
    "(inclusive = exclusive of the subtree; time summed over threads can exceed wall time)'+(R.capture.folded?'; "
    "'+R.capture.folded+' scopes began deeper than '+R.paths_depth+' levels: folded onto the paths marked /.../, the "
    "levels between left out':'');\n"
    "svg.appendChild(el('rect',{x:0,y:0,width:W,height:RH-1,fill:'#888'}));svg.appendChild(el('text',{x:4,y:12,fill:'#"
    "fff','font-size':11},'all threads'));\n"
    "const todo=[[roots,0,0]];while(todo.length){const [l,x0,d]=todo.pop();let x=x0;for(const i of "
    "l.slice().sort((a,b)=>inc[b]-inc[a])){if(!tot||inc[i]<=0)continue;const w=inc[i]/tot*W;const "
    "h=(P[i].site*47)%60;const g=el('g',{});\n"
    "g.appendChild(el('rect',{x:x,y:(d+1)*RH,width:Math.max(w-0.5,0.3),height:RH-1,fill:'hsl('+(20+h)+',75%,'+(55+(d%3)"
    "*5)+'%)'}));\n"
    "g.appendChild(el('title',{},P[i].path+'\\ninclusive '+fmt(inc[i])+', exclusive "
    "'+fmt(val[i])+(ann[i]!=null?'\\nslowest annotated call: '+ann[i]:'')));\n"
    "if(w>40)g.appendChild(el('text',{x:x+3,y:(d+1)*RH+12,'font-size':11},(P[i].folded?'... "
    "':'')+R.sites[P[i].site].name.slice(0,Math.floor(w/7))));\n"
    "svg.appendChild(g);todo.push([kids[i],x,d+1]);x+=w;}}}\n"
    "/* ---- sortable tables (init: the column and direction they start sorted by) ---- */\n"
    "function table(id,cols,rows,init,onrow){const t=$(id);let key=init?init[0]:null,dir=init?init[1]:-1;\n"
    "function render(){const r=rows.slice();if(key!=null)r.sort((a,b)=>{const "
    "x=cols[key].v(a),y=cols[key].v(b);return(typeof x=='string'?x.localeCompare(y):x-y)*dir;});\n"
    "t.innerHTML='<tr>'+cols.map((c,i)=>'<th data-i='+i+'>'+c.h+(key==i?(dir<0?' \\u25bc':' "
    "\\u25b2'):'')+'</th>').join('')+'</tr>'+r.map((x,k)=>'<tr data-k='+k+'>'+cols.map(c=>'<td'+(c.cls?' "
    "class=\"'+c.cls(x)+'\"':'')+'>'+esc(c.f?c.f(c.v(x),x):c.v(x))+'</td>').join('')+'</tr>').join('');\n"
    "t.querySelectorAll('th').forEach(th=>th.addEventListener('click',()=>{const "
    "i=+th.dataset.i;if(key==i)dir=-dir;else{key=i;dir=-1;}render();}));\n"
    "if(onrow)t.querySelectorAll('tr[data-k]').forEach(tr=>{tr.className='pick';tr.addEventListener('click',()=>onrow("
    "r[+tr.dataset.k]));});}\n"
    "render();}\n"
    "const S=(k,f)=>({h:k,v:f,f:fmt});\n"
    "table('sites',[{h:'site',v:s=>s.label||s.name},{h:'calls',v:s=>s.calls},{h:'calls/"
    "frame',v:s=>s.calls_per_frame,f:x=>x.toFixed(2)},S('excl total',s=>s.exclusive.total_ns),S('excl "
    "mean',s=>s.exclusive.mean_ns),S('excl p50',s=>s.exclusive.p50_ns),S('excl p90',s=>s.exclusive.p90_ns),S('excl "
    "p99',s=>s.exclusive.p99_ns),S('excl max',s=>s.exclusive.max_ns),S('incl total',s=>s.inclusive.total_ns),S('incl "
    "p50',s=>s.inclusive.p50_ns),S('incl "
    "p99',s=>s.inclusive.p99_ns),{h:'incomplete',v:s=>s.incomplete},{h:'unwound',v:s=>s.unwound},{h:'recursive',v:s=>s."
    "recursive},{h:'threads',v:s=>s.threads},{h:'lossy',v:s=>s.lossy?'yes':''},{h:'excl "
    "unknown',v:s=>s.excl_unknown}],R.sites.filter(s=>s.calls>0||s.incomplete>0||s.unwound>0),[3,-1]);\n"
    "table('messages',[{h:'level',v:m=>m.level},{h:'frame',v:m=>m.frame},S('at',m=>m.ts_ns),{h:'thread',v:m=>m.thread},"
    "{h:'text',v:m=>m.text}],R.messages.first);\n"
    "table('async',[{h:'track',v:z=>z.track},{h:'zone',v:z=>z.name},{h:'zones',v:z=>z.zones},{h:'open',v:z=>z."
    "incomplete},S('p50',z=>z.duration.p50_ns),S('p90',z=>z.duration.p90_ns),S('max',z=>z.duration.max_ns),{h:'frames "
    "spanned',v:z=>z.frames_spanned_mean,f:x=>x.toFixed(1)},{h:'ended on another "
    "thread',v:z=>z.cross_thread},{h:'threads busy',v:z=>z.thread_busy_share,f:x=>(100*x).toFixed(0)+'%'}],R.async);\n"
    "/* a hitch's items: the work first (the thread and scope where the time went), then what only waited for it */\n"
    "const grewText=h=>h.grew.map(g=>g.name+' +'+fmt(g.delta_excl_ns)+(g.role==='waiting'?(g.waited_on>=0?' "
    "(waiting on '+h.grew[g.waited_on].thread_name+')':' (waiting)'):g.role==='beside'?' (beside)':'')).join(', ');\n"
    "table('hitches',[{h:'frame',v:h=>h.frame},S('frame time',h=>h.frame_ns),{h:'x "
    "median',v:h=>h.ratio,f:x=>x.toFixed(2)},{h:'what it was',v:h=>h.kind_text},{h:'frame thread "
    "CPU',v:h=>h.cpu_ns,f:(x,h)=>x<0?'':fmt(x)+' ('+(h.cpu_extra_ns>=0?'+':'')+fmt(h.cpu_extra_ns)+')'},{h:'grew "
    "(work first, then what waited for it)',v:h=>grewText(h),cls:()=>'wrap'},{h:'explains',v:h=>h.explained,f:(x,h)=>("
    "100*x).toFixed(0)+'%'+(h.explained_over?' (other scopes ran below their medians)':'')}],R.hitches,[1,-1],h=>{"
    "setView(h.frame-30,h.frame+30);selectFrame(h.frame,true);});\n"
    "/* threads: busy time per window frame (top-level scopes, split at the marks) and their top scopes */\n"
    "table('threads',[{h:'thread',v:t=>t.name+(t.frame_thread?' (frame thread)':'')},S('busy/frame',t=>t."
    "busy_per_frame_ns),S('p50',t=>t.busy_p50_ns),S('p90',t=>t.busy_p90_ns),S('max',t=>t.busy_max_ns),{h:'max in "
    "frame',v:t=>t.busy_max_frame},{h:'busy',v:t=>t.busy_share,f:x=>(100*x).toFixed(0)+'%'},{h:'top scopes "
    "(exclusive per frame)',v:t=>t.top.map(x=>x.label+' '+fmt(x.excl_per_frame_ns)).join(', "
    "'),cls:()=>'wrap'}],R.threads||[],[1,-1]);\n"
    "if(D.diff){$('diffsec').style.display='';const rows=D.diff.entries.filter(e=>e.flags);const "
    "pc=x=>x>=1e9?'new':(x*100).toFixed(1)+'%';\n"
    "const iv=s=>e0(s[0])+' ['+(s[1]<=-1?'?':e0(s[1]))+', "
    "'+(s[2]>=1e9?'?':e0(s[2]))+']',e0=x=>(x>=0?'+':'')+(x*100).toFixed(1)+'%';\n"
    "const pf=(x,e)=>e.per_frame.unit==='ns'?fmt(x):(x/1e7).toFixed(2)+'% of frame';\n"
    "table('diff',[{h:'site or "
    "path',v:e=>e.name},{h:'kind',v:e=>e.kind},{h:'verdict',v:e=>e.verdict,cls:e=>/slower|more/.test(e.verdict)?'bad':/"
    "near/.test(e.verdict)?'':'good'},\n"
    "{h:'time/frame base',v:e=>e.per_frame.excl[0],f:pf},{h:'time/frame new',v:e=>e.per_frame.excl[1],f:pf},{h:'per "
    "frame [interval]',v:e=>e.per_frame.rel[0],f:(x,e)=>iv(e.per_frame.rel)},{h:'what grew',v:e=>e.per_frame.cause},\n"
    "{h:'calls/frame base',v:e=>e.calls_per_frame[0],f:x=>x.toFixed(2)},{h:'calls/frame "
    "new',v:e=>e.calls_per_frame[1],f:x=>x.toFixed(2)},{h:'calls',v:e=>e.rel.calls,f:pc},S('excl p50 "
    "base',e=>e.base_excl.p50_ns),S('excl p50 new',e=>e.new_excl.p50_ns),\n"
    "{h:'excl shift [interval]',v:e=>e.shift[0],f:(x,e)=>iv(e.shift)},{h:'incl shift "
    "[interval]',v:e=>e.incl_shift[0],f:(x,e)=>iv(e.incl_shift)},{h:'p90',v:e=>e.rel.p90,f:pc},{h:'p99',v:e=>e.rel.p99,"
    "f:pc},{h:'mean',v:e=>e.rel.mean,f:pc},\n"
    "{h:'calls/s',v:e=>e.rel_calls_per_s,f:pc},{h:'work rests on',v:e=>e.work_basis},{h:'p "
    "shift',v:e=>e.p_shift,f:x=>x.toPrecision(2)},{h:'p per frame',v:e=>e.p_total,f:x=>x.toPrecision(2)},{h:'p "
    "work',v:e=>e.p_work,f:x=>x.toPrecision(2)}],rows);\n"
    "table('diffframes',[{h:'frame time',v:q=>'p'+q.q*100},S('base',q=>q.base_ns),S('new',q=>q.new_ns),{h:'change "
    "[interval]',v:q=>q.rel[0],f:(x,q)=>iv(q.rel)},{h:'verdict',v:q=>q.verdict,cls:q=>q.verdict==='slower'?'bad':q."
    "verdict==='faster'?'good':''}],D.diff.frame_time);\n"
    "const U=D.diff.runs;$('diffnote').textContent=D.diff.method+'. Slower/faster work and more/less time per frame "
    "when the whole interval lies beyond '+(D.diff.min_shift*100)+'%; more/less work at p < "
    "'+D.diff.alpha_per_test.toPrecision(2)+' and a change of at least '+(D.diff.min_change*100)+'%. Runs: '+U.base+' "
    "BASE, '+U.new+' NEW: '+(U.noise_known?'they disagreed by '+(U.sd_median*100).toFixed(2)+'% (largest "
    "'+(U.sd_max*100).toFixed(2)+'%). ':(U.blocks?'one run per side cannot show how much runs differ; '+U.blocks+' "
    "blocks of each run\\u2019s frames stand for runs, at least '+(U.assumed_sd*100)+'% assumed. A verdict of one run "
    "per side is a lead: confirm it with several runs. ':'run-to-run noise is unknown, '+(U.assumed_sd*100)+'% "
    "assumed. '))+(D.diff.undecided?D.diff.undecided+' entries near the line (no verdict). ':'')+(rows.length?'':'No "
    "significant change.');\n"
    "const cr=D.diff.counters.filter(c=>c.flags);table('diffcounters',[{h:'counter',v:c=>c.name+' "
    "'+c.series},{h:'kind',v:c=>c.kind},{h:'verdict',v:c=>c.verdict,cls:c=>/more|higher/"
    ".test(c.verdict)?'bad':'good'},{h:'mean base',v:c=>c.mean[0],f:x=>cval(x,'')},{h:'mean "
    "new',v:c=>c.mean[1],f:x=>cval(x,'')},{h:'change',v:c=>c.rel,f:pc},{h:'p',v:c=>c.p,f:x=>x.toPrecision(2)}],cr);}\n"
    "/* GPU: each queue's frame times as bars by frame number, the CPU's frame times as a line on the same axis (the "
    "application's frame numbers: they match the CPU's frame index when it numbers frames from its first mark), and "
    "the passes */\n"
    "function gpuChart(){if(!D.gpu)return;const svg=$('gpuframes'),W=1000,H=160;svg.setAttribute('viewBox','0 0 '+W+' "
    "'+H);const cpu=R.frames.series;let n=cpu.length,mx=0;\n"
    "for(const t of D.gpu.tracks)for(const [f,v] of t.frames){n=Math.max(n,f+1);mx=Math.max(mx,v);}for(const f of "
    "cpu)mx=Math.max(mx,f[1]);mx*=1.1;const bw=W/Math.max(n,1),nt=D.gpu.tracks.length;\n"
    "D.gpu.tracks.forEach((t,k)=>{for(const [f,v] of t.frames){const h=v/mx*(H-20);const "
    "r=el('rect',{x:f*bw+k*bw/nt,y:H-h,width:Math.max(bw/"
    "nt-0.5,0.5),height:h,fill:['#7a4','#a7c','#c84'][k%3],class:'gpubar'});r.appendChild(el('title',{},t.track+', "
    "frame '+f+': '+fmt(v)));svg.appendChild(r);}});\n"
    "if(cpu.length)svg.appendChild(el('polyline',{points:cpu.map((f,i)=>(i*bw+bw/2)+','+(H-f[1]/mx*(H-20))).join(' "
    "'),fill:'none',stroke:'#06c','stroke-width':1.5}));\n"
    "$('gpunote').textContent='Bars: GPU frame time per queue ('+D.gpu.tracks.map(t=>t.track+': p50 "
    "'+fmt(t.frame_time.p50_ns)+', p95 '+fmt(t.frame_time.p95_ns)+(t.calibrated?'':', uncalibrated')).join('; ')+'); "
    "blue line: CPU frame time (p50 '+fmt(R.frames.time?R.frames.time.p50_ns:0)+'). Device time, by frame number.';\n"
    "table('gpupasses',[{h:'queue',v:p=>p.track},{h:'pass',v:p=>p.pass},{h:'count',v:p=>p.duration.count},{h:'calls/"
    "frame',v:p=>p.calls_per_frame,f:x=>x.toFixed(2)},S('mean',p=>p.duration.mean_ns),S('p50',p=>p.duration.p50_ns),S('"
    "p95',p=>p.duration.p95_ns),S('max',p=>p.duration.max_ns),S('total',p=>p.duration.total_ns)],D.gpu.passes);}\n"
    "$('whole').addEventListener('click',()=>{FC.sel=null;$('framecap').textContent='';redraw();flame(null);});\n"
    "frameChart();counterCharts();gpuChart();flame(null);\n"
    "$('title').textContent=D.title;$('ft').textContent=R.frames.thread;\n";

/* The diff's section, filled by the script when the data hold a diff. */
static const char diff_section[] =
    "<div id=\"diffsec\" style=\"display:none\"><h2>Diff against BASE</h2><p class=\"note\" id=\"diffnote\"></p>"
    "<table id=\"diffframes\"></table><h3>Sites and paths</h3><table id=\"diff\"></table>"
    "<h3>Counters per frame</h3><table id=\"diffcounters\"></table></div>\n";

int ludus__report_html(const ludus_analysis *a, const ludus_diff *d, ludus__writer *w, const ludus_report_options *o) {
    const ludus_analysis_summary *s = &a->sum;
    char b1[32], b2[32], b3[32], b4[32];
    ludus__w_str(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Ludus report</title><style>");
    ludus__w_str(w, css);
    ludus__w_str(w, "</style></head><body>\n<h1>Ludus report: <span id=\"title\"></span></h1>\n");
    const char *gates = d ? ludus__diff_gate_lines(d) : NULL;
    if (gates) { /* what failed the run, first */
        ludus__w_str(w, "<h2>Gates tripped</h2><pre class=\"warn\" id=\"gates\">");
        for (const char *l = gates, *nl; *l; l = nl + 1) { /* line by line: a newline is markup here */
            nl = strchr(l, '\n');
            if (!nl) nl = l + strlen(l) - 1;
            ludus__w_html_str(w, l, (size_t)(nl - l) + (*nl != '\n'));
            ludus__w_ch(w, '\n');
        }
        ludus__w_str(w, "</pre>\n");
    }
    if (d) ludus__w_str(w, diff_section); /* a diff's report is read for the diff: first */
    ludus__w_str(w, "<p class=\"note\">");
    ludus__w_fmt(w, "Capture %s, clock %s, %u threads, %llu events. Window <b>",
                 ludus__dur(b1, 32, (double)s->duration_ns), s->clock_name, s->threads, (unsigned long long)s->events);
    ludus__w_html_str(w, s->window, strlen(s->window));
    ludus__w_fmt(w, "</b>: %llu complete frames on thread &ldquo;<span id=\"ft\"></span>&rdquo;. ",
                 (unsigned long long)s->frames_in_window);
    if (s->frames_in_window) {
        ludus__w_fmt(w, "Frame time p50 %s, p90 %s, p99 %s, max %s; %u hitches (frame &gt; ",
                     ludus__dur(b1, 32, (double)s->frame_time.p50_ns), ludus__dur(b2, 32, (double)s->frame_time.p90_ns),
                     ludus__dur(b3, 32, (double)s->frame_time.p99_ns), ludus__dur(b4, 32, (double)s->frame_time.max_ns),
                     s->hitches);
        if (s->budget_ns)
            ludus__w_fmt(w, "max(%.2f &times; median, budget %s) = %s). ", s->hitch_k,
                         ludus__dur(b1, 32, (double)s->budget_ns), ludus__dur(b2, 32, (double)s->hitch_threshold_ns));
        else
            ludus__w_fmt(w, "%.2f &times; median = %s). ", s->hitch_k,
                         ludus__dur(b2, 32, (double)s->hitch_threshold_ns));
        if (s->frame_cpu.count)
            ludus__w_fmt(w, "Frame thread CPU time p50 %s (%.0f%% of its wall time). ",
                         ludus__dur(b1, 32, (double)s->frame_cpu.p50_ns),
                         s->frame_time.total_ns ? 100.0 * (double)s->frame_cpu.total_ns / (double)s->frame_time.total_ns
                                                : 0.0);
    }
    ludus__w_fmt(
        w,
        "</p>\n<p class=\"%s\">Loss: %llu dropped events, %llu incomplete slices (closed at capture end; counted, "
        "never used as durations), %llu orphan ends, %llu filtered.</p>\n",
        s->dropped || s->incomplete ? "warn" : "note", (unsigned long long)s->dropped,
        (unsigned long long)s->incomplete, (unsigned long long)s->orphan_ends, (unsigned long long)s->filtered);
    if (s->pool_bytes_needed) {
        char advice[320];
        ludus_pool_advice(s->pool_bytes_needed, advice, sizeof advice);
        if (advice[0] >= 'a' && advice[0] <= 'z') advice[0] = (char)(advice[0] - 'a' + 'A'); /* a sentence */
        ludus__w_str(w, "<p class=\"warn\" id=\"pool-advice\">");
        ludus__w_html_str(w, advice, strlen(advice));
        ludus__w_str(w, ".</p>\n");
    }
    ludus__w_fmt(w,
                 "<p class=\"note\">Times are elapsed wall-clock time, not CPU time. Inclusive = entry to exit "
                 "(per site: outermost activations only); exclusive = inclusive minus the union of child scopes "
                 "on the same track (thread or span lane). Time summed over threads can exceed frame time. "
                 "Percentiles: %s.</p>\n",
                 s->exact ? "exact (every duration kept)"
                          : "nearest rank from a log-linear histogram, relative error &le; 0.78%");
    if (s->trigger_reason) { /* a rolling window's file: what it was written for */
        ludus__w_str(w, "<p class=\"trigger\">Written by the rolling window for a trigger: <b>");
        ludus__w_html_str(w, s->trigger_reason, strlen(s->trigger_reason));
        ludus__w_fmt(w, "</b> at %s", ludus__dur(b1, 32, (double)s->trigger_ns));
        if (s->trigger_detail[0]) {
            ludus__w_str(w, ": ");
            ludus__w_html_str(w, s->trigger_detail, strlen(s->trigger_detail));
        }
        if (s->trigger_frame)
            ludus__w_fmt(w, " (frame %llu ends there; the dotted line on the chart)",
                         (unsigned long long)s->trigger_frame);
        ludus__w_str(w, ".</p>\n");
    }
    ludus__w_str(
        w, "<div class=\"pair\"><div id=\"framesec\"><h2>Frame time</h2><p class=\"note\">Green: frames in the "
           "window; red: hitches; grey: outside the window; the lead-in (before the first mark) is no frame and is not "
           "drawn. Wheel or + / -: zoom; drag or the overview below: pan; "
           "double-click: all frames; click a frame (or use the arrow keys) for its flame graph. Where frames are "
           "narrower than a pixel, each bar is the longest of its frames.</p><p><button id=\"zin\">zoom in</button>"
           "<button id=\"zout\">zoom out</button><button id=\"zall\">all frames</button><button id=\"worst\">"
           "next worst hitch</button><label><input type=\"checkbox\" id=\"clamp\" checked> clamp the axis "
           "(frames above it marked &#9650;)</label></p><svg id=\"frames\" tabindex=\"0\"></svg>"
           "<svg id=\"overview\"></svg><p class=\"note\" id=\"framecap\"></p>\n"
           "<h2>Hitches</h2><p class=\"note\">Worst first; click a row to see its frame.</p>"
           "<div class=\"scroll\"><table id=\"hitches\"></table></div>\n");
    int64_t cut_ns, omitted_max;
    uint32_t ties, omitted = ludus__html_hitches_cut(a, &cut_ns, &ties, &omitted_max);
    if (omitted) /* the page stays a few MB: the rest in one line */
        ludus__w_fmt(w,
                     "<p class=\"note\" id=\"hitches-omitted\">The %u worst hitches are listed; %u more, each "
                     "%s or shorter, are left out of this page (ludus-trace report --json lists every one).</p>\n",
                     LUDUS__HTML_HITCHES, omitted, ludus__dur(b1, 32, (double)omitted_max));
    ludus__w_str(
        w, "<h2>Threads</h2><p class=\"note\">Busy: time in the thread's top-level scopes within each window frame "
           "(split at the marks; a frame it did not run in counts 0); top scopes by exclusive time per window "
           "frame. A hitch names the thread and scope where its extra time went.</p>"
           "<div class=\"scroll\"><table id=\"threads\"></table></div>\n"
           "<h2>Counters per frame</h2><p class=\"note\">Each value is the snapshot the frame's closing mark recorded "
           "(counters: the frame's sum; gauges: last, min, max; memory domains: live, peak and churn), on the frame "
           "chart's axis (its zoom).</p><div id=\"counters\"></div></div>\n"
           "<div class=\"side\"><h2>Flame graph (caller-context paths)</h2><p><button id=\"whole\">whole window"
           "</button><span id=\"flametitle\"></span></p><div class=\"flamebox\"><svg id=\"flame\"></svg></div>"
           "</div></div>\n");
    if (o->gpu)
        ludus__w_str(w, "<h2>GPU frame time</h2><p class=\"note\" id=\"gpunote\"></p>"
                        "<svg id=\"gpuframes\" width=\"1000\" height=\"160\"></svg>"
                        "<h3>GPU passes (device time)</h3><table id=\"gpupasses\"></table>\n");
    ludus__report_locks_html(a, d, w);
    ludus_message_stats m;
    ludus_analysis_get_messages(a, &m);
    ludus__w_fmt(w,
                 "<h2>Messages</h2><p class=\"note\">%llu errors, %llu warnings, %llu info, %llu debug; marked on the "
                 "frame chart (orange: warnings, dark red: errors). The first warnings and errors:</p>"
                 "<table id=\"messages\"></table>\n"
                 "<h2>Async zones</h2><p class=\"note\">Their own tree, per track and zone; threads busy: the time "
                 "the threads that began and ended each zone spent in top-level scopes while it was open.</p>"
                 "<table id=\"async\"></table>\n",
                 (unsigned long long)m.count[3], (unsigned long long)m.count[2], (unsigned long long)m.count[1],
                 (unsigned long long)m.count[0]);
    ludus__w_str(w, d ? "" : diff_section);
    ludus__w_str(w, "<h2>Sites</h2><p class=\"note\">Click a column to sort.</p><table id=\"sites\"></table>\n"
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
    ludus__w_str(w, "</script>\n</body></html>\n");
    return 0;
}
