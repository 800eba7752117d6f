-- One row per lead (person at a company) of the leads-coffee-roasters pipeline, however many runs found them and
-- although the results sync landed each of its results a second time: every result is counted once by its id
-- (the `results` sync's copy carries the same result_id), and sightings counts the distinct results that named
-- the lead.
with results as (
    select result_id, name, job_title, company, email, website
    from {{ source('scrape_etl', 'leads_coffee_roasters_items') }}
    union all
    select s.result_id, s.name, s.job_title, s.company, s.email, s.website
    from {{ source('scrape_etl', 'results_sync_items') }} as s
    inner join {{ source('scrape_etl', 'results_landed') }} as l
        on l.id = s.result_id and l.pipeline = 'results-sync' and l.is_copy
    inner join {{ source('scrape_etl', 'leads_results') }} as r
        on r.id = s.result_id and r.pipeline = 'leads-coffee-roasters'
),

per_result as (
    select distinct result_id, name, job_title, company, email, website
    from results
),

keyed as (
    select
        lower(coalesce(email, website, company, name)) as lead_key,
        per_result.*
    from per_result
)

select
    lead_key,
    max(name) as name,
    max(job_title) as job_title,
    max(company) as company,
    max(email) as email,
    max(website) as website,
    count(*) as sightings,
    min(result_id) as first_result_id,
    max(result_id) as last_result_id
from keyed
group by lead_key
