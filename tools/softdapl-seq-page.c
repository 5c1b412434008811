/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softdapl-seq: what makes the HTML page something to teach from, all in
 * the one file, with no network: stepping through the rows with the keys,
 * the path of an operation highlighted on a click, setup and teardown
 * folded into a row each, a filter by lifeline, and a small hint of the
 * keys. write_html() calls these; the SVG picture has none of them.
 *
 * What the script reads is written here, from the layout (mark_paths):
 *
 *   <g class="row" id="rowN" data-row="N" data-part="setup|body|teardown"
 *      data-y="TOP" data-h="HEIGHT" data-lanes="laneA laneB"
 *      data-path="P [Q]">       one per row, in row order
 *   <g id="content" data-setup-top data-setup-end data-setup-rows
 *      data-teardown-start data-teardown-rows data-bottom>
 *                               the lifelines and rows, whose part of
 *                               <g id="clipped"> a fold clips and moves up
 *   <g class="partfold" data-part="setup|teardown">
 *                               the row a folded part becomes
 *
 * What it shows can be read in the DOM: <svg data-step="N"> and the rows'
 * classes current, future; data-path="P" and classes onpath and offpath;
 * data-folded="setup teardown" and class folded; data-eps="lane1 lane3"
 * and class epoff. The URL's fragment sets the same state at load, its
 * parts joined by '&': step=N, path=P, ep=NAME[,NAME], unfold, keys=K[,K]
 * (keys pressed in turn, by their names: j, ArrowLeft, End, Space ...),
 * selfcheck (the developers' check, whose result goes to the title and
 * the hidden <div id="selfcheck"> only).
 */
#include <stdio.h>
#include <string.h>

#include "softdapl-seq.h"

int opt_selfcheck;

/* The height of the row a folded part becomes. */
#define FOLD_ROW	26

static int setup_top = -1, setup_end, setup_rows;
static int teardown_start = -1, teardown_rows;

static void page_parts(void)
{
	int i, body_end = -1;

	setup_top = -1;
	teardown_start = -1;
	setup_end = setup_rows = teardown_rows = 0;
	for (i = 0; i < norder; i++) {
		const struct item *it = &items[order[i]];

		if (!it->shown || !row_drawn(it))
			continue;
		if (it->part == PART_SETUP) {
			if (setup_top < 0)
				setup_top = it->fold ? it->fold_y : it->y;
			setup_end = it->y + it->h;
			setup_rows++;
		} else if (it->part == PART_BODY) {
			body_end = it->y + it->h;
		} else {
			teardown_rows++;
		}
	}
	if (teardown_rows > 0)
		teardown_start = body_end + 4;
}

/* A row that has a drawing of its own: an rx is drawn with its tx. */
int row_drawn(const struct item *it)
{
	return !(it->kind == K_RX && it->match >= 0 &&
		 items[it->match].shown && find_kv(it, "bad") == NULL);
}

void page_content_open(FILE *f, int width, int bottom)
{
	page_parts();
	fprintf(f, "<defs><clipPath id=\"partclip\"><rect id=\"partcliprect\" "
		"x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/></clipPath></defs>\n"
		"<g id=\"content\" data-setup-top=\"%d\" data-setup-end=\"%d\" "
		"data-setup-rows=\"%d\" data-teardown-start=\"%d\" "
		"data-teardown-rows=\"%d\" data-bottom=\"%d\" "
		"data-paths=\"%d\">\n<g id=\"clipped\" "
		"clip-path=\"url(#partclip)\">\n", width, bottom + 100,
		setup_top, setup_end, setup_rows, teardown_start,
		teardown_rows, bottom, npaths);
}

static void put_partfold(FILE *f, const char *part, int y, int rows,
			 int width)
{
	fprintf(f, "<g class=\"partfold\" data-part=\"%s\" data-y=\"%d\" "
		"style=\"display:none\"><title>click, or f, to unfold</title>"
		"<rect x=\"2\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\"/>"
		"<text class=\"lbl partlbl\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">%s: %d rows \xe2\x80\x94 click to "
		"unfold</text></g>\n", part, y, y + 2, width - 4, FOLD_ROW - 4,
		width / 2, y + FOLD_ROW / 2 + 4, part, rows);
}

void page_content_close(FILE *f, int width)
{
	fputs("</g>\n", f);
	if (teardown_rows > 0)
		put_partfold(f, "teardown", teardown_start, teardown_rows,
			     width);
	fputs("</g>\n", f);
	if (setup_rows > 0)
		put_partfold(f, "setup", setup_top, setup_rows, width);
}

static const char *const part_names[] = { "setup", "body", "teardown" };

void page_row_open(FILE *f, const struct item *it, int row)
{
	int lanes_of[3], n = 0, i;

	lanes_of[n++] = it->lane;
	if ((it->kind == K_TX || it->kind == K_RX) && it->match >= 0 &&
	    items[it->match].shown)
		lanes_of[n++] = items[it->match].lane;
	if (it->kind == K_PLACE && it->peer >= 0 && lanes[it->peer].shown)
		lanes_of[n++] = it->peer;
	fprintf(f, "<g class=\"row\" id=\"row%d\" data-row=\"%d\" "
		"data-part=\"%s\" data-y=\"%d\" data-h=\"%d\" data-lanes=\"",
		row, row, part_names[it->part], it->y, it->h);
	for (i = 0; i < n; i++)
		fprintf(f, "%slane%d", i ? " " : "", lanes_of[i]);
	fputs("\"", f);
	if (it->path >= 0) {
		fprintf(f, " data-path=\"%d", it->path);
		if (it->path2 >= 0)
			fprintf(f, " %d", it->path2);
		fputs("\"", f);
	}
	fputs(">", f);
}

void page_row_close(FILE *f)
{
	fputs("</g>\n", f);
}

static const char *const page_css =
	"#keys{position:fixed;right:8px;bottom:8px;font:11px sans-serif;"
	"color:#455a64;background:#fffde7;border:1px solid #e0e0e0;"
	"border-radius:4px;padding:3px 7px;opacity:.92}"
	"#keys kbd{font:10px monospace;border:1px solid #bdbdbd;"
	"border-radius:3px;padding:0 3px;background:#fff}"
	"#lanes{font-size:12px;color:#37474f;margin:0 0 6px}"
	"#lanes label{margin-right:10px;cursor:pointer}"
	"#selfcheck{display:none}"
	".seq .row{cursor:pointer}"
	".seq .row.future{opacity:.12}"
	".seq .row.folded,.seq .row.epoff,.seq .epoff{display:none}"
	".seq.pathon .row.offpath{opacity:.15}"
	".seq .row.onpath line{stroke-width:3}"
	".seq .row.onpath .box{stroke-width:2.5}"
	".seq .row.onpath text{font-weight:bold}"
	".seq #cursor{fill:#fff59d;opacity:.7}"
	".seq .partfold{cursor:pointer}"
	".seq .partfold rect{fill:#eceff1;stroke:#90a4ae;"
	"stroke-dasharray:5 3}"
	".seq text.partlbl{font-style:italic;fill:#37474f}";

void page_head(FILE *f)
{
	fputs(page_css, f);
}

/* The script: the state, its drawing, the keys, the clicks, the URL. */
static const char *const page_js =
	"(function(){\n"
	"var svg=document.querySelector('svg.seq');if(!svg)return;\n"
	"var q={};location.hash.replace(/^#/,'').split('&').forEach("
	"function(p){if(!p)return;var i=p.indexOf('=');"
	"q[i<0?p:p.slice(0,i)]=i<0?'':decodeURIComponent(p.slice(i+1));});\n"
	"if('selfcheck' in q||window.SEQ_SELFCHECK){var r=seqSelfcheck();\n"
	" document.getElementById('selfcheck').textContent=r;\n"
	" document.title=r+' \\u2014 '+document.title;}\n"
	"var h=svg.querySelector('g.headers');\n"
	"window.addEventListener('scroll',function(){\n"
	" var d=Math.max(0,-svg.getBoundingClientRect().top);\n"
	" h.setAttribute('transform','translate(0,'+d+')');\n"
	" h.classList.toggle('stuck',d>0);});\n"
	"var content=document.getElementById('content'),"
	"clip=document.getElementById('partcliprect'),"
	"clipped=document.getElementById('clipped');\n"
	"var rows=[].slice.call(svg.querySelectorAll('g.row'));\n"
	"var C=content.dataset,W=+svg.getAttribute('width');\n"
	"var st={step:-1,path:null,fold:{setup:false,teardown:false},eps:null};\n"
	"if(+C.setupRows>0&&+C.paths>0&&svg.querySelector('g.row[data-part=body]'))"
	"{st.fold.setup=true;st.fold.teardown=+C.teardownRows>0;}\n"
	"if('unfold' in q)st.fold={setup:false,teardown:false};\n"
	"var cur=document.createElementNS(svg.namespaceURI,'rect');\n"
	"cur.id='cursor';cur.setAttribute('x','2');cur.setAttribute('width',W-4);\n"
	"clipped.insertBefore(cur,clipped.firstChild);\n"
	"function paths(r){return(r.dataset.path||'').split(' ').filter("
	"function(s){return s!=='';});}\n"
	"function visible(r){return !r.classList.contains('folded')&&"
	"!r.classList.contains('epoff');}\n"
	"function lanesOn(r){if(!st.eps)return true;return r.dataset.lanes."
	"split(' ').some(function(l){return st.eps.indexOf(l)>=0;});}\n"
	"function each(sel,f){[].forEach.call(svg.querySelectorAll(sel),f);}\n"
	"function orig(e,a){var k='o'+a;if(!(k in e.dataset))"
	"e.dataset[k]=e.getAttribute(a);return +e.dataset[k];}\n"
	"var cut=[];\n"
	"function shiftAt(y){var s=0;cut.forEach(function(c){if(y>=c[1])"
	"s+=c[1]-c[0];else if(y>c[0])s+=y-c[0];});return s;}\n"
	"function draw(){\n"
	" var sel=st.path?st.path.split(' '):null,prev=null;cut=[];\n"
	" rows.forEach(function(r){var n=+r.dataset.row,y=+r.dataset.y,"
	"off=!lanesOn(r);\n"
	"  r.classList.toggle('folded',!!st.fold[r.dataset.part]);\n"
	"  r.classList.toggle('epoff',off);\n"
	"  if(off)cut.push([prev===null?y:prev,y+(+r.dataset.h)]);\n"
	"  prev=y+(+r.dataset.h);\n"
	"  r.classList.toggle('future',st.step>=0&&n>st.step);\n"
	"  r.classList.toggle('current',st.step>=0&&n===st.step);\n"
	"  var on=!!sel&&paths(r).some(function(p){return sel.indexOf(p)>=0;});\n"
	"  r.classList.toggle('onpath',on);r.classList.toggle('offpath',!!sel&&!on);});\n"
	" rows.forEach(function(r){var d=shiftAt(+r.dataset.y);"
	"if(d)r.setAttribute('transform','translate(0,'+(-d)+')');"
	"else r.removeAttribute('transform');\n"
	/* An arrow's rx end is rows below its tx: what was cut between. */
	"  [].forEach.call(r.querySelectorAll('g.frame>line'),function(l){"
	"var y2=orig(l,'y2');l.setAttribute('y2',y2-shiftAt(y2)+d);});});\n"
	" var fl=svg.querySelectorAll('g.foldlabel');\n"
	" each('g.fold',function(g,i){var y=+g.dataset.y,d=shiftAt(y),"
	"gone=cut.some(function(c){return y>=c[0]&&y<c[1];});\n"
	"  [g,fl[i]].forEach(function(e){if(!e)return;"
	"e.classList.toggle('epoff',gone);"
	"e.setAttribute('transform','translate(0,'+(-d)+')');});});\n"
	" each('.statebar,.rnrband',function(e){var y=orig(e,'y'),"
	"b=y+orig(e,'height'),y2=y-shiftAt(y);\n"
	"  e.setAttribute('y',y2);e.setAttribute('height',Math.max(1,b-shiftAt(b)-y2));});\n"
	" var se=+C.setupEnd-shiftAt(+C.setupEnd),ts=+C.teardownStart-"
	"shiftAt(+C.teardownStart),bo=+C.bottom-shiftAt(+C.bottom);\n"
	" each('g.partfold[data-part=teardown]',function(g){g.setAttribute("
	"'transform','translate(0,'+(-shiftAt(+C.teardownStart))+')');});\n"
	" var su=se-(+C.setupTop+26),d=st.fold.setup?su:0,"
	"top=st.fold.setup?se:0,bot=bo+100;\n"
	" if(st.fold.teardown)bot=ts;\n"
	" content.setAttribute('transform','translate(0,'+(-d)+')');\n"
	" clip.setAttribute('y',top);clip.setAttribute('height',bot-top);\n"
	" var H=(st.fold.teardown?ts+26+16:bo+24)-d;\n"
	" svg.setAttribute('height',H);svg.setAttribute('viewBox','0 0 '+W+' '+H);\n"
	" each('g.partfold',function(g){"
	"g.style.display=st.fold[g.dataset.part]?'':'none';});\n"
	" var f=[];if(st.fold.setup)f.push('setup');"
	"if(st.fold.teardown)f.push('teardown');\n"
	" if(f.length)svg.dataset.folded=f.join(' ');else delete svg.dataset.folded;\n"
	" if(st.eps)svg.dataset.eps=st.eps.join(' ');else delete svg.dataset.eps;\n"
	" each('g.lifeline,g.lanehead,.statebar[data-lane],.rnrband',"
	"function(g){var l=g.id||g.dataset.lane;\n"
	"  g.classList.toggle('epoff',!!st.eps&&st.eps.indexOf(l)<0);});\n"
	" each('rect.procband',function(b){b.classList.toggle('epoff',!!st.eps&&"
	"![].some.call(svg.querySelectorAll('g.lifeline[data-pid=\"'+"
	"b.dataset.pid+'\"]'),function(g){return st.eps.indexOf(g.id)>=0;}));});\n"
	" svg.classList.toggle('pathon',!!sel);\n"
	" if(sel)svg.dataset.path=st.path;else delete svg.dataset.path;\n"
	" if(st.step>=0)svg.dataset.step=st.step;else delete svg.dataset.step;\n"
	" var c=st.step>=0?rows[st.step]:null;\n"
	" if(c){cur.setAttribute('y',+c.dataset.y-shiftAt(+c.dataset.y));"
	"cur.setAttribute('height',Math.max(+c.dataset.h,8));cur.style.display='';\n"
	"  var b=c.getBoundingClientRect();\n"
	"  if(b.top<90||b.bottom>window.innerHeight-30)"
	"window.scrollBy(0,b.top-window.innerHeight/3);}\n"
	" else cur.style.display='none';}\n"
	"function go(k){var v=rows.filter(visible);if(!v.length)return;\n"
	" var i=-1;v.forEach(function(r,j){if(+r.dataset.row<=st.step)i=j;});\n"
	" if(k==='home')i=0;else if(k==='end')i=v.length-1;\n"
	" else if(k>0)i=Math.min(v.length-1,i+1);\n"
	" else i=Math.max(0,i-1);\n"
	" st.step=+v[i].dataset.row;draw();}\n"
	"function show(p){st.path=p;if(p){var s=p.split(' ');rows.forEach("
	"function(r){if(paths(r).some(function(x){return s.indexOf(x)>=0;}))"
	"st.fold[r.dataset.part]=false;});}draw();}\n"
	"function togglefold(){var any=st.fold.setup||st.fold.teardown;\n"
	" st.fold={setup:!any&&+C.setupRows>0,teardown:!any&&+C.teardownRows>0};\n"
	" if(st.step>=0&&rows[st.step].dataset.part!=='body'&&!any)st.step=-1;\n"
	" draw();}\n"
	"document.addEventListener('keydown',function(e){\n"
	" if(e.altKey||e.ctrlKey||e.metaKey||e.target.tagName==='INPUT')return;\n"
	" var k=e.key;\n"
	" if(k==='ArrowRight'||k==='j'||k===' '||k==='ArrowDown'&&e.shiftKey)go(1);\n"
	" else if(k==='ArrowLeft'||k==='k'||k==='Backspace')go(-1);\n"
	" else if(k==='Home')go('home');else if(k==='End')go('end');\n"
	" else if(k==='Escape'){if(st.path)show(null);else{st.step=-1;draw();}}\n"
	" else if(k==='f')togglefold();else return;\n"
	" e.preventDefault();});\n"
	"svg.addEventListener('click',function(e){\n"
	" var g=e.target.closest('g.partfold');\n"
	" if(g){st.fold[g.dataset.part]=false;draw();return;}\n"
	" var r=e.target.closest('g.row');if(!r)return;\n"
	" var p=r.dataset.path||null;show(p&&p!==st.path?p:null);});\n"
	"var box=document.getElementById('lanes');\n"
	"[].forEach.call(svg.querySelectorAll('g.lifeline'),function(g){\n"
	" var hd=svg.querySelector('g.lanehead[data-lane='+g.id+'] text'),"
	"l=document.createElement('label'),c=document.createElement('input');\n"
	" c.type='checkbox';c.checked=true;c.value=g.id;"
	"c.dataset.lane=g.dataset.lane;l.appendChild(c);\n"
	" l.appendChild(document.createTextNode(' '+(hd?hd.textContent:g.dataset.lane)));\n"
	" box.appendChild(l);\n"
	" c.addEventListener('change',function(){var on=[].filter.call("
	"box.querySelectorAll('input'),function(x){return x.checked;});\n"
	"  st.eps=on.length===box.querySelectorAll('input').length?null:"
	"on.map(function(x){return x.value;});draw();});});\n"
	"if(q.ep){var want=q.ep.split(','),on=[];\n"
	" [].forEach.call(svg.querySelectorAll('g.lifeline'),function(g){\n"
	"  if(want.indexOf(g.id)>=0||want.indexOf(g.dataset.lane)>=0||"
	"want.indexOf(g.dataset.pid+':'+g.dataset.lane)>=0)on.push(g.id);});\n"
	" st.eps=on;[].forEach.call(box.querySelectorAll('input'),function(x){"
	"x.checked=on.indexOf(x.value)>=0;});}\n"
	"draw();\n"
	"if(q.path)show(q.path);\n"
	"if(q.step!==undefined&&rows.length){var n=Math.max(0,Math.min("
	"rows.length-1,+q.step||0));\n"
	" st.fold[rows[n].dataset.part]=false;st.step=n;draw();}\n"
	"if(q.keys)q.keys.split(',').forEach(function(k){document.dispatchEvent("
	"new KeyboardEvent('keydown',{key:k==='Space'?' ':k}));});\n"
	"})();\n";

void page_tail(FILE *f, const char *selfcheck_js)
{
	fputs("<div id=\"keys\"><kbd>\xe2\x86\x92</kbd>/<kbd>j</kbd>/"
	      "<kbd>Space</kbd> next row \xc2\xb7 <kbd>\xe2\x86\x90</kbd>/"
	      "<kbd>k</kbd> back \xc2\xb7 <kbd>Home</kbd>/<kbd>End</kbd> "
	      "\xc2\xb7 click a row: its operation \xc2\xb7 <kbd>Esc</kbd> "
	      "clear \xc2\xb7 <kbd>f</kbd> fold setup and teardown</div>\n",
	      f);
	fprintf(f, "<div id=\"selfcheck\" hidden>selfcheck: not run</div>\n"
		"<script>\n%s%s</script>\n<script>\n%s</script>\n",
		opt_selfcheck ? "window.SEQ_SELFCHECK=1;\n" : "", selfcheck_js,
		page_js);
}
