// The admin's stylesheet: the public pages' palette (light and dark, following the system) and
// rules for the shell, tables, forms and dialogs. Sent inline under the page's CSP nonce.
// Colours come from PAGE_PALETTE, whose contrast is tested; the one exception is the white page
// behind previews (campaigns, the subscription form), which show them as a mail client would.
import { PAGE_PALETTE } from '../http/layout.tsx';

export const ADMIN_STYLE = `${PAGE_PALETTE}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
[x-cloak]{display:none!important}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5rem 1rem;z-index:20}.skip:focus{left:.5rem}
.shell{display:grid;grid-template-columns:15rem 1fr;grid-template-rows:auto 1fr;min-height:100vh}
.topbar{grid-column:1/-1;display:flex;align-items:center;gap:1rem;padding:.6rem 1.25rem;background:var(--card);border-bottom:1px solid var(--border);position:sticky;top:0;z-index:10}
.topbar .brand{font-weight:700;font-size:1.05rem;color:var(--fg);text-decoration:none;margin-right:auto}
.topbar .who{color:var(--muted);font-size:.9rem}
.topbar form{margin:0}
.menu-toggle{display:none}
.sidebar{background:var(--card);border-right:1px solid var(--border);padding:1rem .75rem}
.sidebar ul{list-style:none;margin:0;padding:0}
.sidebar .group{margin:1rem 0 .25rem;padding:0 .6rem;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;color:var(--muted)}
.sidebar a{display:block;padding:.4rem .6rem;border-radius:.4rem;color:var(--fg);text-decoration:none}
.sidebar a:hover{background:var(--bg)}
.sidebar a[aria-current]{background:var(--accent);color:var(--on-accent);font-weight:600}
.sidebar ul ul a{padding-left:1.2rem}
.content{padding:1.25rem 1.5rem 3rem;min-width:0}
.page-head{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1rem;margin-bottom:1rem}
.page-head h1{font-size:1.45rem;margin:0;margin-right:auto}
.page-head .count{color:var(--muted);font-weight:400;font-size:1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .6rem}
.card{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem 1.25rem;margin-bottom:1rem}
.card>h2:first-child{margin-top:0}
.back{display:inline-block;margin-bottom:.5rem;font-size:.9rem}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem;margin-bottom:1rem}
.tile{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem 1.25rem}
.tile-link{display:block;color:var(--fg);text-decoration:none}.tile-link:hover .big{color:var(--accent)}
.tile .big{font-size:1.9rem;font-weight:700;line-height:1.2}
.tile .label{color:var(--muted);font-weight:600;font-size:.85rem;text-transform:uppercase;letter-spacing:.04em}
.tile dl{display:grid;grid-template-columns:1fr auto;gap:.1rem 1rem;margin:.5rem 0 0;font-size:.9rem}
.tile dt{color:var(--muted)}.tile dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.u-legend th,.u-legend td{border:0;padding:.1rem .35rem;text-transform:none;letter-spacing:normal;font-size:.85rem;color:var(--fg)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1rem}
figure{margin:0}
.chart{min-height:220px}
.toolbar{display:flex;flex-wrap:wrap;gap:.5rem .75rem;align-items:flex-end;margin-bottom:.75rem}
.toolbar .grow{flex:1 1 14rem}
.table-wrap{overflow-x:auto;background:var(--card);border:1px solid var(--border);border-radius:.6rem}
table{border-collapse:collapse;width:100%;font-size:.93rem}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid var(--border);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);white-space:nowrap}
th a{color:inherit;text-decoration:none}th a:hover{text-decoration:underline}
th[aria-sort] a{color:var(--fg)}
tbody tr:last-child td{border-bottom:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.check,th.check{width:2rem}
.empty{padding:2rem;text-align:center;color:var(--muted)}
.tag{display:inline-block;padding:0 .45rem;border:1px solid var(--field-border);border-radius:1rem;font-size:.78rem;color:var(--muted);margin:.1rem .2rem .1rem 0;white-space:nowrap}
.tag.accent{border-color:var(--accent);color:var(--accent)}
.tag.danger{border-color:var(--danger);color:var(--danger)}
.muted{color:var(--muted)}.small{font-size:.85rem}.danger-text{color:var(--danger)}
.pager{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin-top:.75rem}
.pager ul{display:flex;gap:.25rem;list-style:none;margin:0;padding:0}
.pager a,.pager span.current{display:inline-block;min-width:2.1rem;padding:.25rem .5rem;text-align:center;border:1px solid var(--border);border-radius:.35rem;text-decoration:none}
.pager span.current{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}
label{font-weight:600;display:block;margin:0 0 .25rem}
.field{margin-bottom:.9rem}
.field .help{color:var(--muted);font-size:.85rem;margin:.2rem 0 0}
.field-error{color:var(--danger);font-weight:600;font-size:.9rem;margin:.3rem 0 0}
.field-error:empty{display:none}
input[type=text],input[type=email],input[type=search],input[type=number],input[type=password],input[type=url],input[type=date],input[type=datetime-local],select,textarea{width:100%;padding:.45rem .6rem;border:1px solid var(--field-border);border-radius:.4rem;background:var(--bg);color:var(--fg);font:inherit}
textarea{min-height:6rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88rem}
select[multiple]{min-height:7rem}
[aria-invalid=true]{border-color:var(--danger)!important;outline-color:var(--danger)}
.inline{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
.check-label{display:flex;gap:.45rem;align-items:center;font-weight:400;margin:.2rem 0}
fieldset{border:1px solid var(--border);border-radius:.5rem;padding:.6rem 1rem;margin:0 0 .9rem}
legend{font-weight:600;padding:0 .3rem}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:0 1.25rem}
button,.button{display:inline-flex;align-items:center;gap:.35rem;padding:.45rem .95rem;border:1px solid var(--accent);border-radius:.4rem;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;cursor:pointer;text-decoration:none;white-space:nowrap}
button.secondary,.button.secondary{background:transparent;color:var(--accent);border-color:var(--field-border)}
button.danger,.button.danger{background:var(--danger);border-color:var(--danger);color:var(--on-danger)}
button.link{background:none;border:0;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
button:disabled{opacity:.55;cursor:not-allowed}
button.small,.button.small{padding:.2rem .55rem;font-size:.85rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:1rem}
.row-actions{display:flex;gap:.6rem;flex-wrap:wrap}
.bulk{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;padding:.6rem .75rem;margin-bottom:.75rem;background:var(--card);border:1px solid var(--accent);border-radius:.5rem}
.notices{position:fixed;right:1rem;bottom:1rem;display:flex;flex-direction:column;gap:.5rem;z-index:30;max-width:min(26rem,calc(100vw - 2rem))}
.notice{background:var(--card);border:1px solid var(--border);border-left:4px solid var(--accent);border-radius:.4rem;padding:.6rem .75rem;display:flex;gap:.75rem;align-items:flex-start;box-shadow:0 2px 8px rgba(0,0,0,.15)}
.notice.error{border-left-color:var(--danger)}
.notice p{margin:0;flex:1;word-break:break-word}
.alert{border-left:4px solid var(--danger);background:var(--card);padding:.6rem .8rem;border-radius:.3rem;color:var(--danger);font-weight:600;margin:.5rem 0}
.alert:empty{display:none}
.banner{border:1px solid var(--border);border-left:4px solid var(--accent);background:var(--card);padding:.6rem .9rem;border-radius:.4rem;margin-bottom:1rem}
.banner.warn{border-left-color:var(--danger)}
dialog{border:1px solid var(--border);border-radius:.6rem;background:var(--card);color:var(--fg);padding:1.25rem;max-width:min(34rem,calc(100vw - 2rem));width:100%}
dialog::backdrop{background:rgba(0,0,0,.45)}
dialog h2{margin-top:0}
.tabs{display:flex;gap:.25rem;border-bottom:1px solid var(--border);margin-bottom:1rem;flex-wrap:wrap}
.tabs a{padding:.45rem .9rem;border:1px solid transparent;border-bottom:0;border-radius:.4rem .4rem 0 0;text-decoration:none}
.tabs a[aria-current=page]{background:var(--card);border-color:var(--border);color:var(--fg);font-weight:600;margin-bottom:-1px}
.ids{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;font-size:.88rem;color:var(--muted);margin-bottom:1rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86rem}
pre{background:var(--bg);border:1px solid var(--border);border-radius:.4rem;padding:.6rem .75rem;overflow:auto;white-space:pre-wrap;word-break:break-word;margin:.25rem 0}
progress{width:100%;height:1.1rem;accent-color:var(--accent)}
.dropzone{border:2px dashed var(--field-border);border-radius:.6rem;padding:1.5rem;text-align:center;color:var(--muted)}
.dropzone.over{border-color:var(--accent);color:var(--fg)}
.log{max-height:18rem;overflow:auto}
details summary{cursor:pointer;color:var(--accent)}
.spinner{display:inline-block;width:.7em;height:.7em;margin-right:.3em;border:2px solid currentColor;border-right-color:transparent;border-radius:50%;animation:spin .8s linear infinite;vertical-align:-.05em}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
dialog.preview-dialog{max-width:min(60rem,calc(100vw - 2rem))}
.preview-frame{width:100%;height:70vh;border:1px solid var(--border);border-radius:.4rem;background:#fff}
.form-preview{width:100%;min-height:22rem;border:1px solid var(--border);border-radius:.4rem;background:#fff}
.table-wrap{position:relative}
.search-form .toolbar{margin-bottom:.25rem}
.search-form details{margin-top:.6rem}.search-form .list-choices{max-height:12rem;overflow:auto;margin-top:.4rem}
pre.query-pointer{margin:.25rem 0 0;color:var(--danger);white-space:pre;overflow-x:auto}
fieldset.plain{border:0;padding:0;margin:0}
.list-choices{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:0 1rem}
dl.meta{display:grid;grid-template-columns:auto 1fr;gap:0 .6rem;margin:0;font-size:.85rem}dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;word-break:break-word}
td.break{word-break:break-all}
.address{overflow-wrap:anywhere}
td.nowrap{white-space:nowrap}
.choice-text{min-width:0;overflow-wrap:anywhere}.choice-text .tag{white-space:normal}
td .tag{white-space:normal;overflow-wrap:break-word}
[hidden]{display:none!important}
.split{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:0 1rem;align-items:start}
.choices{max-height:14rem;overflow:auto;display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:0 1rem}
.facts{display:grid;grid-template-columns:fit-content(40%) 1fr;gap:.2rem 1.25rem;margin:.75rem 0}
.facts dt{color:var(--muted)}.facts dd{margin:0;font-variant-numeric:tabular-nums}
.reasons{margin:.25rem 0;padding-left:1.25rem}.reasons:empty{display:none}
.callout{border-left:4px solid var(--accent);background:var(--bg);padding:.5rem .75rem;border-radius:.3rem;margin:.5rem 0}
.callout h3{margin:0 0 .3rem;font-size:1rem}.callout p{margin:.2rem 0}
.optin-lists{padding-left:1.1rem;margin:.4rem 0}.optin-lists li{margin:.35rem 0}.optin-lists button{margin-left:.3rem}
.lead{font-weight:600;margin:.25rem 0 .5rem}
table.mapping tbody th{font-size:inherit;text-transform:none;letter-spacing:normal;color:var(--fg);font-weight:600;white-space:normal;overflow-wrap:anywhere}
table.mapping td{overflow-wrap:anywhere}
table.mapping .becomes{display:flex;flex-wrap:wrap;gap:.3rem}table.mapping .becomes>*{min-width:0;max-width:100%}
@media (max-width:640px){table.mapping thead{display:none}table.mapping tr{display:grid;grid-template-columns:1fr;padding:.4rem 0;border-bottom:1px solid var(--border)}table.mapping th,table.mapping td{border:0;padding:.1rem 0}}
.chips{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.chip{display:inline-flex;gap:.4rem;align-items:center;padding:.15rem .6rem;border:1px solid var(--accent);border-radius:1rem;font-size:.88rem}
.chip a{text-decoration:none;font-weight:700}
.rates-wrap{margin-bottom:1.25rem}.rates td.num{white-space:nowrap}
.picker{position:relative}.picker-chosen{list-style:none;padding:0;margin:0 0 .6rem}
.picker-results{list-style:none;margin:.25rem 0 0;padding:.3rem 0;border:1px solid var(--border);border-radius:.4rem;background:var(--card);max-height:16rem;overflow:auto;position:absolute;left:1rem;right:1rem;z-index:10;box-shadow:0 4px 14px rgba(0,0,0,.18)}
.picker-results li{padding:.3rem .75rem}.picker-results li[aria-selected=true] button::before{content:'✓ ';font-weight:700}
details.meta pre{max-width:28rem;max-height:16rem}
.editor-layout{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1rem;align-items:start}
.editor-layout .preview-frame{height:40rem}
.media-grid{list-style:none;padding:0;margin:0 0 1rem;display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:1rem}
.media-item{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:.6rem;display:flex;flex-direction:column;align-items:flex-start;gap:.2rem;min-width:0}
.media-thumb{display:flex;align-items:center;justify-content:center;align-self:stretch;height:8rem;border-radius:.4rem;overflow:hidden;text-decoration:none;background:repeating-conic-gradient(var(--border) 0 25%,var(--bg) 0 50%) 0 0/16px 16px}
.media-thumb img{max-width:100%;max-height:100%;object-fit:contain}
.media-ext{font-weight:700;font-size:1.3rem;color:var(--muted);background:var(--card);padding:.4rem .7rem;border-radius:.4rem}
.media-name{font-weight:600;font-size:.9rem;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.uploads{list-style:none;padding:0;margin:.75rem 0 0;display:grid;gap:.4rem}
.uploads li{display:grid;grid-template-columns:minmax(0,14rem) minmax(6rem,1fr) minmax(0,2fr);gap:.75rem;align-items:center}
.uploads .field-error{margin:0}
.richtext{border:1px solid var(--field-border);border-radius:.4rem;background:var(--bg)}
.richtext-bar{display:flex;flex-wrap:wrap;gap:.3rem;padding:.4rem;border-bottom:1px solid var(--border);background:var(--card);border-radius:.4rem .4rem 0 0}
.richtext-bar [aria-pressed=true]{background:var(--accent);color:var(--on-accent)}
.richtext-content{min-height:18rem;max-height:70vh;overflow:auto;padding:.4rem .8rem}
.richtext-content:focus-visible{outline:3px solid var(--accent);outline-offset:-3px}
.richtext-content img{max-width:100%}
dialog.picker{max-width:min(48rem,calc(100vw - 2rem))}
.picker .media-grid{max-height:50vh;overflow:auto}
.media-pick{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.2rem;width:100%;height:8rem;padding:.3rem;background:var(--bg);border:1px solid var(--border);color:var(--fg);white-space:normal}
.media-pick img{max-width:100%;min-height:0;flex:1;object-fit:contain}
.editor-bar{display:flex;justify-content:flex-end;margin-bottom:.3rem}
ul.choices{list-style:none;padding:0;margin:.4rem 0 0}
.chips:empty{display:none}
ul.chips{list-style:none;padding:0;margin:0 0 .5rem}
.chip-remove{padding:0 .35rem;min-height:0;line-height:1.2;background:transparent;color:var(--fg);border:0;font-size:1rem}
.audience{font-weight:600;margin:.4rem 0 0}
.audience-fix{display:block;font-weight:400;margin:.25rem 0 0}
:target{scroll-margin-top:4.5rem}
.query-examples ul{list-style:none;padding:0;margin:.2rem 0 0}
.query-examples li{margin:.2rem 0}
.query-examples button.link{text-align:left;white-space:normal;overflow-wrap:anywhere;text-decoration:none}
.query-examples button.link:hover code{text-decoration:underline}
button.fill{margin-top:.3rem}
.richtext-content a.button{display:inline-block;padding:.5rem 1.2rem;border-radius:.3rem;background:#0b57d0;color:#fff;text-decoration:none}
.settings-tabs{display:flex;flex-wrap:wrap;gap:0 .25rem;border-bottom:1px solid var(--border);margin-bottom:1rem}
.settings-tabs [role=tab]{background:transparent;color:var(--accent);border:0;border-radius:.4rem .4rem 0 0;font-weight:400;padding:.45rem .8rem}
.settings-tabs [role=tab][aria-selected=true]{color:var(--fg);font-weight:600;box-shadow:inset 0 -3px 0 var(--accent)}
.tab-panel:focus-visible{outline-offset:4px}
.tab-panel h3{font-size:1rem;margin:0 0 .6rem}
.block-head{align-items:flex-end;gap:.5rem 1.5rem}.block-head .field{margin-bottom:.5rem}
.smtp-test .inline{align-items:flex-end}.smtp-test .grow{flex:1 1 14rem;margin-bottom:0}
.test-result:empty{display:none}.test-result{margin:.5rem 0 0;font-weight:600;overflow-wrap:anywhere}.test-result.ok{color:var(--fg)}.test-result.error{color:var(--danger)}
.bounce-actions label{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.bounce-actions .field{margin:0}
.bounce-actions input{width:4.5rem}.bounce-actions select{min-width:7.5rem}.bounce-actions th{white-space:normal}.bounce-actions th,.bounce-actions td{padding-left:.4rem;padding-right:.4rem}
.save-bar{position:sticky;bottom:0;display:flex;justify-content:flex-end;align-items:center;gap:1rem;padding:.6rem 0;background:var(--bg);border-top:1px solid var(--border);z-index:5}
.checklist{list-style:none;padding:0;margin:.5rem 0}
.checklist li{display:flex;gap:.6rem;align-items:flex-start;padding:.35rem 0}
.checklist .tick{flex:none;width:1.4rem;height:1.4rem;border:2px solid var(--field-border);border-radius:50%;display:inline-flex;align-items:center;justify-content:center;font-weight:700;font-size:.85rem}
.checklist li.done .tick{background:var(--accent);border-color:var(--accent);color:var(--on-accent)}
.checklist li.done a{color:var(--muted)}
.checklist .help,.card .help{display:block;color:var(--muted);font-size:.85rem}
.tracking-choice{border-top:1px solid var(--border);margin-top:.5rem;padding-top:.5rem}.tracking-choice h3{margin:.25rem 0;font-size:1rem}
.banner h2{margin:0 0 .35rem;font-size:1.05rem}.banner p{margin:.3rem 0}.banner ul{margin:.3rem 0;padding-left:1.2rem}.campaign-progress{margin:.5rem 0 1rem}
.ops{display:grid;grid-template-columns:repeat(auto-fill,minmax(21rem,1fr));gap:0 1rem;align-items:start}
.facts{display:grid;grid-template-columns:fit-content(40%) 1fr;gap:.3rem 1rem;margin:0}.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.facts.aligned{grid-template-columns:min(17rem,40%) minmax(0,1fr)}
.log-tools{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin-bottom:.75rem}.log-tools .field{margin:0;flex:1 1 14rem}
.log-view{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:.5rem .25rem;max-height:70vh;overflow:auto;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:0}
.log-line{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 .5rem;border-left:3px solid transparent}
.log-line.warn{color:var(--log-warn);border-left-color:var(--log-warn)}
.log-line.error{color:var(--danger);border-left-color:var(--danger);font-weight:600}
:root{--log-warn:#8a4b00}
@media (prefers-color-scheme:dark){:root{--log-warn:#f2b65a}}
@media (max-width:800px){
.shell{grid-template-columns:1fr}
.menu-toggle{display:inline-flex}
.sidebar{display:none;border-right:0;border-bottom:1px solid var(--border)}
.sidebar.open{display:block}
.content{padding:1rem .75rem 3rem}
.topbar{padding:.5rem .75rem;gap:.5rem}.topbar .who{display:none}
.grid2{grid-template-columns:1fr}
.split{grid-template-columns:1fr}
.editor-layout,.uploads li{grid-template-columns:1fr}
th,td{padding:.45rem .5rem}
.hide-narrow{display:none}
.row-actions{flex-direction:column;align-items:flex-start;gap:.45rem}.row-actions button.link{white-space:normal;text-align:left}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block}
table.cards thead{display:block}table.cards .hide-narrow{display:none}
table.cards thead tr{display:flex;flex-wrap:wrap;align-items:center;gap:0 .25rem;border-bottom:1px solid var(--border)}
table.cards thead th{border:0}table.cards thead th:not(.check):not(:has(a)){display:none}
table.cards tbody tr{position:relative;padding:.55rem .75rem;border-bottom:1px solid var(--border)}
table.cards tbody tr:last-child{border-bottom:0}
table.cards:has(td.check) tbody tr{padding-left:2.6rem}
table.cards td{border:0;padding:.1rem 0;text-align:left;white-space:normal;overflow-wrap:anywhere}
table.cards td.check{position:absolute;left:.5rem;top:.55rem;width:auto}
table.cards td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font-size:.85rem}
table.cards td.empty{padding:2rem 0;text-align:center}
table.cards .row-actions{flex-direction:row;flex-wrap:wrap;gap:.3rem 1rem;margin-top:.3rem}
}
.perm-groups{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:0 1rem}
.perm-groups .check-label.all{font-weight:600;border-bottom:1px solid var(--border);padding-bottom:.3rem;margin-bottom:.3rem}
.reach{margin-top:1rem}.reach ul{padding-left:1.2rem;margin:.5rem 0}.reach li{margin:.35rem 0}
.enrol img.qr{display:block;background:#fff;padding:.5rem;border:1px solid var(--border);border-radius:.4rem;margin:.5rem 0}
code.secret{word-break:break-all;font-size:1rem;letter-spacing:.05em}
.token input{font-size:.95rem}
.secret-dialog{max-width:min(50rem,calc(100vw - 2rem))}
.secret-dialog h3{font-size:1rem;margin:1rem 0 .3rem}
.secret-line{display:flex;gap:.75rem;align-items:center}.secret-line input{flex:1;min-width:0}
.copy-notice{font-weight:600;font-size:.9rem}
pre.snippet{white-space:pre;overflow:auto;word-break:normal;max-height:20rem;margin:.5rem 0 .25rem}
.event-groups fieldset{min-width:0}
.event-type .help{margin:0 0 .45rem 1.65rem;color:var(--muted);font-size:.85rem}
.head-actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.empty-state{text-align:center;padding:2rem 1.25rem}.empty-state p{max-width:38rem;margin:0 auto 1rem}
tr.delivery-detail>td{background:var(--bg)}
table.deliveries tbody:not(:last-child) tr.delivery-detail>td{border-bottom:1px solid var(--border)}
.delivery-parts{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1rem}
.delivery-parts h3{font-size:.95rem;margin:.25rem 0}.delivery-parts pre{max-height:20rem}.delivery-parts p{margin:.25rem 0}
@media (max-width:800px){.delivery-parts{grid-template-columns:minmax(0,1fr)}}
.help-link{display:inline-flex;align-items:center;justify-content:center;width:1.35rem;height:1.35rem;margin-left:.35rem;border:1px solid var(--field-border);border-radius:50%;font-size:.8rem;font-weight:700;text-decoration:none;vertical-align:.1em;line-height:1}
.help-link:hover{border-color:var(--accent)}
.help-topics{list-style:none;padding:0;margin:0;display:grid;gap:.75rem;max-width:48rem}
.help-topics li{display:flex;flex-direction:column;gap:.1rem;background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:.7rem 1rem}
.help-topics a{font-weight:600}
.doc{max-width:52rem;overflow-wrap:break-word}
.doc h2{font-size:1.25rem;margin:2rem 0 .6rem;padding-bottom:.25rem;border-bottom:1px solid var(--border)}
.doc h3{font-size:1.05rem;margin:1.5rem 0 .5rem}
.doc h4{font-size:.95rem;margin:1.25rem 0 .4rem}
.doc pre{white-space:pre;overflow-x:auto;word-break:normal;padding:.7rem .9rem}
.doc :not(pre)>code{background:var(--card);border:1px solid var(--border);border-radius:.25rem;padding:0 .25rem;overflow-wrap:anywhere}
.doc img{max-width:100%;height:auto;border:1px solid var(--border);border-radius:.4rem}
.doc blockquote{margin:1rem 0;padding:.1rem 1rem;border-left:4px solid var(--border);color:var(--muted)}
.doc-table{overflow-x:auto;margin:.75rem 0;background:var(--card);border:1px solid var(--border);border-radius:.6rem}
.doc-table th{text-transform:none;letter-spacing:normal;font-size:.85rem;white-space:normal}
.doc li{margin:.2rem 0}`;
